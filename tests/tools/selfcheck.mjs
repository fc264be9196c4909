// Checks the shared check tools themselves, so a helper who calls them can trust them:
//   - validate.mjs: Fox.glb validates with 0 errors; CesiumMan.glb reports its known
//     ACCESSOR_WEIGHTS_NON_NORMALIZED errors (shared/models/README.md: 210 of them);
//     a truncated GLB and a missing file are reported as errors (exit 1), never as clean;
//   - blender_import.py (when Debian's blender is installed): Fox.glb imports with one
//     armature of 24 bones, a skinned mesh of 1728 vertices (Blender merges nothing on
//     import), and 3 actions whose bone fcurves name real bones.
// Exit 0 ok, 1 failure, 77 skipped (no ../shared/models).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const models = process.env.SINEW_MODELS || path.resolve(repo, '..', 'shared', 'models');
if (!fs.existsSync(path.join(models, 'Fox.glb'))) {
  console.log(`SKIP: ${models}/Fox.glb is absent`);
  process.exit(77);
}
let failures = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures++;
}
function validate(...files) {
  const r = spawnSync('node', [path.join(here, 'validate.mjs'), ...files], { encoding: 'utf8' });
  const lines = r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  return { status: r.status, lines };
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sinew-tools-'));
try {
  const fox = path.join(models, 'Fox.glb');
  const cesium = path.join(models, 'CesiumMan.glb');
  let v = validate(fox, cesium);
  check(v.status === 0 && v.lines.length === 2, `validate.mjs: exit 0 and one line per file (${v.status}, ${v.lines.length})`);
  check(v.lines[0] && v.lines[0].errors === 0, 'validate.mjs: Fox.glb has 0 errors');
  check(v.lines[1] && v.lines[1].errors >= 200 && v.lines[1].codes.includes('ACCESSOR_WEIGHTS_NON_NORMALIZED'),
        `validate.mjs: CesiumMan.glb reports non-normalised weights (${v.lines[1] && v.lines[1].errors} errors)`);

  const bytes = fs.readFileSync(fox);
  const cut = path.join(tmp, 'cut.glb');
  fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
  v = validate(cut, path.join(tmp, 'missing.glb'));
  check(v.lines.length === 2 && v.lines.every((l) => l.errors > 0) && v.status === 1,
        `validate.mjs: truncated and missing files are errors (exit ${v.status})`);

  const blender = spawnSync('sh', ['-c', 'command -v blender'], { encoding: 'utf8' }).stdout.trim();
  if (!blender) {
    console.log('note: blender is not installed: blender_import.py not checked');
  } else {
    const out = path.join(tmp, 'fox.json');
    const r = spawnSync(blender, ['-b', '--factory-startup', '--python-exit-code', '1', '-P',
      path.join(here, 'blender_import.py'), '--', fox, out], { encoding: 'utf8', timeout: 120000 });
    check(r.status === 0, `blender_import.py: exit ${r.status}`);
    const j = fs.existsSync(out) ? JSON.parse(fs.readFileSync(out, 'utf8')) : {};
    const arm = (j.armatures || [])[0];
    check(j.ok === true && j.armatures.length === 1 && arm.bones.length === 24,
          `blender_import.py: one armature of 24 bones (${arm ? arm.bones.length : 'none'})`);
    const mesh = (j.meshes || []).find((m) => m.skinned);
    check(mesh && mesh.vertices === 1728, `blender_import.py: skinned mesh of 1728 vertices (${mesh && mesh.vertices})`);
    const bones = new Set(arm ? arm.bones : []);
    const actions = j.actions || [];
    check(actions.length === 3 && actions.every((a) => a.bones.length > 0 && a.bones.every((b) => bones.has(b))),
          `blender_import.py: 3 actions animating real bones (${actions.map((a) => `${a.name}:${a.bones.length}`).join(' ')})`);
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.exit(failures ? 1 : 0);
