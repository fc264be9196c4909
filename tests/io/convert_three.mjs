// The last convert check: three.js skins a `sinew convert` output to the same positions
// as sinew does (tests/reference/three_agreement.mjs, every clip, 10 times each, 1e-5 of the
// diagonal). With io_convert_reference showing that the output's JSON equals the input's apart
// from buffer layout and every bufferView's bytes are equal, this closes the loop: three.js
// sees the same skinned mesh in the output as in the input. Skips when ../shared/models is
// absent.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const models = process.env.SINEW_MODELS || path.resolve('../shared/models');
const bin = path.join(process.env.SINEW_BIN || 'build/bin', 'sinew');
if (!fs.existsSync(models)) {
  console.log(`note: ${models} is absent: skipping the converted-output three.js check`);
  process.exit(0);
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sinew-convert-three-'));
const outputs = [];
for (const dir of [models, path.join(models, 'notail')]) {
  for (const f of fs.readdirSync(dir).sort()) {
    if (!/\.(glb|gltf)$/.test(f)) continue;
    const out = path.join(tmp, `${dir === models ? '' : 'notail_'}${f.replace(/\.(glb|gltf)$/, '')}.glb`);
    execFileSync(bin, ['convert', path.join(dir, f), out]);
    outputs.push(out);
  }
}
const here = path.dirname(new URL(import.meta.url).pathname);
const run = spawnSync('node', [path.join(here, '../reference/three_agreement.mjs'), ...outputs],
                      { stdio: 'inherit', env: process.env });
fs.rmSync(tmp, { recursive: true, force: true });
process.exit(run.status ?? 1);
