// Solving or baking a file again leaves nothing behind: the clips a solve (--control, or
// --replace onto a target) or a bake replaces take their accessors, bufferViews and bytes with
// them. Each command is run on its own output; the Khronos glTF-Validator's unused-object
// count (its UNUSED_OBJECT infos and hints) must not grow past the input's and the file must
// not grow from the first run to the second. The reduced keys must also be what is written:
// the default output is smaller than --keys all's, with fewer keys in the report.
// Exit 0 pass, 1 fail, 77 skipped (no models).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const validator = require('gltf-validator');
const modelsDir = process.env.SINEW_MODELS || path.resolve('..', 'shared', 'models');
const bin = path.join(process.env.SINEW_BIN || 'build/bin', 'sinew');
const fox = path.join(modelsDir, 'Fox.glb');
const qfox = path.join(modelsDir, 'quaternius_Fox.glb');
const notail = path.join(modelsDir, 'notail', 'quaternius_Fox.glb');
for (const f of [fox, qfox, notail])
  if (!fs.existsSync(f)) {
    console.log(`SKIP: ${f} is absent`);
    process.exit(77);
  }

// Errors and UNUSED_OBJECT issues (any severity) the validator reports for `file`.
async function inspect(file) {
  const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
    maxIssues: 0, externalResourceFunction: () => Promise.reject(new Error('external')) });
  const unused = report.issues.messages.filter((m) => m.code === 'UNUSED_OBJECT').length;
  return { errors: report.issues.numErrors, unused, size: fs.statSync(file).size };
}

const run = (args) => execFileSync(bin, args, { stdio: ['ignore', 'ignore', 'inherit'] });

let failed = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failed++;
}

// `step(input, output)` runs one command; it is run on `input`, then on its own output.
// `slack`: bytes the second file may add (see the reduced control run below).
async function twice(label, input, step, tmp, slack = 0) {
  const first = path.join(tmp, `${label}1.glb`);
  const second = path.join(tmp, `${label}2.glb`);
  step(input, first);
  step(first, second);
  const [a, b, c] = [await inspect(input), await inspect(first), await inspect(second)];
  const show = (s) => `${s.unused} unused, ${s.size} bytes, ${s.errors} errors`;
  console.log(`${label}: input ${show(a)}; once ${show(b)}; twice ${show(c)}`);
  check(b.errors === 0 && c.errors === 0, `${label}: the outputs validate`);
  check(b.unused <= a.unused && c.unused <= a.unused,
    `${label}: unused objects do not grow (input ${a.unused}, once ${b.unused}, twice ${c.unused})`);
  check(c.size <= b.size + slack,
    `${label}: the second run's file is no larger (${b.size} -> ${c.size} bytes${slack ? `, up to ${slack} more allowed` : ''})`);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sinew-solve-rewrite-'));
try {
  await twice('control', fox, (i, o) => run(['solve', '--source', i, '--control', '--keys', 'all',
    '-o', o]), tmp);
  // With reduced keys the second run solves the reduced clip, a curve a little off the first
  // one's, whose reduction may keep a few keys more: 28 bytes per key at most (time and
  // rotation), 1% of the file allows some 60 of its 1,323 keys; a leak adds the whole clip set
  // (64 KB here before the writer dropped released accessors).
  const file = (await inspect(fox)).size;
  await twice('control-reduced', fox, (i, o) => run(['solve', '--source', i, '--control', '-o', o]),
    tmp, Math.round(0.01 * file));
  await twice('replace', notail, (i, o) => run(['solve', '--source', qfox, '--target', i,
    '--clips', 'Walk,Gallop', '--replace', '-o', o]), tmp);
  const tailed = path.join(tmp, 'tailed.glb');
  run(['tail', notail, '-o', tailed]);
  await twice('bake', tailed, (i, o) => run(['bake', i, '-o', o]), tmp);
  await twice('bake-reduced', tailed, (i, o) => run(['bake', i, '--key-degrees', '0.1', '-o', o]), tmp);
  const [full, reducedBake] = ['bake1.glb', 'bake-reduced1.glb'].map((f) => fs.statSync(path.join(tmp, f)).size);
  check(reducedBake < full, `bake --key-degrees 0.1 writes less: ${full} -> ${reducedBake} bytes`);

  // The reduced keys are what is written.
  const all = path.join(tmp, 'all.glb');
  const reduced = path.join(tmp, 'reduced.glb');
  const keys = (file, extra) => {
    const report = `${file}.json`;
    run(['solve', '--source', fox, '--control', '-o', file, '--report', report, ...extra]);
    const clips = JSON.parse(fs.readFileSync(report, 'utf8')).clips;
    return clips.reduce((n, c) => n + c.solve.keys.written, 0);
  };
  const [ka, kr] = [keys(all, ['--keys', 'all']), keys(reduced, [])];
  const [sa, sr] = [fs.statSync(all).size, fs.statSync(reduced).size];
  check(kr < ka && sr < sa, `Fox control: --keys all ${ka} keys, ${sa} bytes; reduced ${kr} keys, ${sr} bytes`);

  // Bad key options are usage errors (exit 2) naming the option.
  for (const bad of [['--keys', 'some'], ['--keys', 'all', '--key-degrees', '1'],
    ['--key-degrees', '0'], ['--key-translation', '-1'], ['--key-translation', '1']]) {
    let code = 0;
    let text = '';
    try {
      execFileSync(bin, ['solve', '--source', fox, '--control', ...bad], { stdio: 'pipe' });
    } catch (e) {
      code = e.status;
      text = String(e.stderr);
    }
    check(code === 2 && /--key/.test(text), `solve ${bad.join(' ')}: exit ${code}: ${text.trim().split('\n')[0]}`);
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
