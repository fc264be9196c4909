// Runs the Khronos glTF-Validator (npm gltf-validator) on each FILE and prints one JSON line
// per file:
//   {"file":"a.glb","errors":0,"warnings":2,"infos":5,"hints":0,
//    "codes":["ACCESSOR_WEIGHTS_NON_NORMALIZED", ...]}
// `codes` lists the distinct codes of the errors and warnings (sorted); infos and hints are
// only counted. External resources (.bin files, images) are resolved next to the file; a
// URI that cannot be read is reported by the validator itself as an error.
//
// Usage:  node tests/tools/validate.mjs FILE...          (from /work/main, or NODE_PATH set)
//         node tests/tools/validate.mjs --messages FILE  (adds "messages": the first 50
//                                                         error/warning lines, for humans)
// Exit:   0 when every file was validated (whatever it contains; read the counts),
//         1 when a file could not be read or the validator could not even start on it
//           (its line then has "fatal": "why" and errors >= 1), 2 on bad usage.
// From C tests: run it with test_run() and look for "\"errors\":0" in the output.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const validator = require('gltf-validator');

const args = process.argv.slice(2);
const withMessages = args.includes('--messages');
const files = args.filter((a) => a !== '--messages');
if (files.length === 0 || args.includes('--help')) {
  process.stderr.write('usage: node tests/tools/validate.mjs [--messages] FILE...\n');
  process.exit(files.length === 0 && !args.includes('--help') ? 2 : 0);
}

let status = 0;
for (const file of files) {
  let bytes;
  try {
    bytes = new Uint8Array(fs.readFileSync(file));
  } catch (e) {
    console.log(JSON.stringify({ file, errors: 1, warnings: 0, infos: 0, hints: 0, codes: [],
                                 fatal: `cannot read: ${e.message}` }));
    status = 1;
    continue;
  }
  const dir = path.dirname(path.resolve(file));
  try {
    const report = await validator.validateBytes(bytes, {
      uri: path.basename(file),
      maxIssues: 0, // unlimited: CesiumMan alone has 210 errors
      writeTimestamp: false,
      externalResourceFunction: (uri) =>
        new Promise((resolve, reject) => {
          const p = path.resolve(dir, decodeURIComponent(uri));
          fs.readFile(p, (err, data) => (err ? reject(err.toString()) : resolve(new Uint8Array(data))));
        }),
    });
    const issues = report.issues;
    const messages = issues.messages || [];
    const codes = [...new Set(messages.filter((m) => m.severity <= 1).map((m) => m.code))].sort();
    const line = { file, errors: issues.numErrors, warnings: issues.numWarnings,
                   infos: issues.numInfos, hints: issues.numHints, codes };
    if (withMessages) {
      line.messages = messages.filter((m) => m.severity <= 1).slice(0, 50)
        .map((m) => `${m.severity === 0 ? 'error' : 'warning'} ${m.code} ${m.pointer || ''}: ${m.message}`);
    }
    console.log(JSON.stringify(line));
  } catch (e) {
    console.log(JSON.stringify({ file, errors: 1, warnings: 0, infos: 0, hints: 0, codes: [],
                                 fatal: String(e) }));
    status = 1;
  }
}
process.exit(status);
