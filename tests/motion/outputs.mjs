// Baked outputs seen by real tools (issue 4, "Acceptance on data"). For the procedural fox and
// every ../shared/models/notail/*.glb (skipped, saying so, when the folder is absent) this runs
// `sinew tail IN -o T --no-bake` then `sinew bake T -o B`, and then, by mode:
//   validate  the Khronos glTF-Validator (tests/tools/validate.mjs) finds 0 errors in B wherever
//             it finds 0 in IN (new warning codes are printed, not failed);
//   blender   Blender 3.4 imports B (tests/tools/blender_import.py) with the Tail_1..Tail_K and
//             Tail_End bones in its armature and one action per glTF animation, in each of
//             which every Tail_<n> bone has keys (fcurves).
// Usage: node tests/motion/outputs.mjs validate|blender   (SINEW_BIN: folder of the CLI)
// Exit 0 ok, 1 failure, 77 skipped (blender mode without Blender installed), 2 bad usage.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const mode = process.argv[2];
if (mode !== 'validate' && mode !== 'blender') {
  process.stderr.write('usage: node tests/motion/outputs.mjs validate|blender\n');
  process.exit(2);
}
const sinew = path.join(process.env.SINEW_BIN || path.join(repo, 'build', 'bin'), 'sinew');
const models = process.env.SINEW_MODELS || path.resolve(repo, '..', 'shared', 'models');
let failures = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures++;
}
function run(cmd, args, timeout = 120000) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout });
  if (r.status !== 0) process.stdout.write(`$ ${cmd} ${args.join(' ')}\n${r.stdout}${r.stderr}`);
  return r;
}

// The animation names of a .glb, from its JSON chunk.
function animationNames(file) {
  const b = fs.readFileSync(file);
  const len = b.readUInt32LE(12);
  const json = JSON.parse(b.subarray(20, 20 + len).toString('utf8'));
  return (json.animations || []).map((a, i) => a.name || `animation_${i}`);
}

let blender = '';
if (mode === 'blender') {
  blender = spawnSync('sh', ['-c', 'command -v blender'], { encoding: 'utf8' }).stdout.trim();
  if (!blender) {
    console.log('SKIP: blender is not installed');
    process.exit(77);
  }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sinew-motion-'));
try {
  const inputs = [];
  const fox = path.join(tmp, 'fox.glb');
  check(run(sinew, ['creature', 'fox', '-o', fox]).status === 0, 'sinew creature fox');
  inputs.push(fox);
  const notail = path.join(models, 'notail');
  if (fs.existsSync(notail)) {
    for (const f of fs.readdirSync(notail).filter((n) => n.endsWith('.glb')).sort())
      inputs.push(path.join(notail, f));
  } else {
    console.log(`note: ${notail} is absent: only the procedural fox is checked`);
  }
  const pairs = [];
  for (const input of inputs) {
    const stem = path.basename(input, '.glb');
    const chain = path.join(tmp, `${stem}_tail.glb`);
    const baked = path.join(tmp, `${stem}_baked.glb`);
    const ok = run(sinew, ['tail', input, '-o', chain, '--no-bake']).status === 0 &&
      run(sinew, ['bake', chain, '-o', baked]).status === 0;
    check(ok, `${stem}: sinew tail + sinew bake`);
    if (ok) pairs.push({ stem, input, baked });
  }

  if (mode === 'validate') {
    const files = pairs.flatMap((p) => [p.input, p.baked]);
    const r = run('node', [path.join(repo, 'tests', 'tools', 'validate.mjs'), ...files], 300000);
    const lines = r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    check(r.status === 0 && lines.length === files.length,
          `validate.mjs ran on ${files.length} files (exit ${r.status})`);
    const byFile = new Map(lines.map((l) => [l.file, l]));
    for (const p of pairs) {
      const a = byFile.get(p.input), b = byFile.get(p.baked);
      if (!a || !b) { check(false, `${p.stem}: validator lines`); continue; }
      const added = b.codes.filter((c) => !a.codes.includes(c));
      console.log(`     ${p.stem}: input ${a.errors} errors ${a.warnings} warnings; baked ` +
                  `${b.errors} errors ${b.warnings} warnings${added.length ? `; new codes ${added.join(',')}` : ''}`);
      if (a.errors === 0) check(b.errors === 0, `${p.stem}: baked output has 0 errors (${b.errors}: ${b.codes.join(',')})`);
      else console.log(`     ${p.stem}: input already has ${a.errors} errors: not judged`);
    }
  } else {
    for (const p of pairs) {
      const out = path.join(tmp, `${p.stem}.json`);
      const r = run(blender, ['-b', '--factory-startup', '--python-exit-code', '1', '-P',
        path.join(repo, 'tests', 'tools', 'blender_import.py'), '--', p.baked, out], 180000);
      const j = fs.existsSync(out) ? JSON.parse(fs.readFileSync(out, 'utf8')) : {};
      check(r.status === 0 && j.ok === true, `${p.stem}: Blender imports the baked file (exit ${r.status}${j.error ? `, ${j.error}` : ''})`);
      if (!j.ok) continue;
      const arm = (j.armatures || []).find((a) => a.bones.includes('Tail_1'));
      check(!!arm, `${p.stem}: an armature holds Tail_1`);
      if (!arm) continue;
      const tails = arm.bones.filter((b) => /^Tail_\d+$/.test(b));
      check(tails.length >= 3 && arm.bones.includes('Tail_End'),
            `${p.stem}: bones ${tails.join(',')} + Tail_End`);
      const anims = animationNames(p.baked);
      // Blender 3.4 names an action "<animation>_<armature object>".
      const actions = j.actions || [];
      check(actions.length === anims.length,
            `${p.stem}: ${actions.length} actions for ${anims.length} animations`);
      for (const name of anims) {
        const matching = actions.filter((a) => a.name === name || a.name.startsWith(`${name}_`) && !anims.some((o) => o !== name && o.startsWith(name) && a.name.startsWith(`${o}_`)));
        const act = matching[0];
        if (!act || matching.length !== 1) {
          check(false, `${p.stem}: one action for "${name}" (found ${matching.map((a) => a.name).join(',') || 'none'})`);
          continue;
        }
        const missing = tails.filter((t) => !act.bones.includes(t));
        check(missing.length === 0,
              `${p.stem}: action "${act.name}" keys ${tails.length - missing.length}/${tails.length} Tail_* bones${missing.length ? ` (missing ${missing.join(',')})` : ''}`);
      }
    }
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
process.exit(failures ? 1 : 0);
