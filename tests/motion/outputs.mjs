// Baked outputs seen by real tools (acceptance on data). For the procedural fox and
// every ../shared/models/notail/*.glb (skipped, saying so, when the folder is absent) this runs
// `sinew tail IN -o T --no-bake` then `sinew bake T -o B`, and then, by mode:
//   validate  the Khronos glTF-Validator (tests/tools/validate.mjs) finds 0 errors in B wherever
//             it finds 0 in IN (new warning codes are printed, not failed);
//   blender   Blender 3.4 imports B (tests/tools/blender_import.py) with the Tail_1..Tail_K and
//             Tail_End bones in its armature and one action per glTF animation, in each of
//             which every Tail_<n> bone has keys (fcurves); and Blender PLAYS what sinew
//             computed: in the same Blender start, the script's --pose dump gives the world
//             head of every Tail_* bone and of the tail's parent bone at chosen (animation,
//             time) pairs, which must match sinew's world joint positions at the same pairs
//             (tests/reference/reference_joints, SINEW_REFERENCE_JOINTS) after glTF's Y up
//             -> Blender's Z up, (x, y, z) -> (x, -z, y). Times: the file's pose, and per
//             clip up to 16 baked keys where the body is on its own keys too, up to 8 where
//             it is not, up to 8 midpoints between baked keys. Asserted within BLENDER_ON_KEY
//             of the world diagonal: world positions in the file's pose and on the first kind
//             of key; on every baked key, the tail relative to its parent bone (which takes
//             out how each player interpolates the body: see comparePoses). Printed, not
//             judged: the others, where Blender legitimately differs because it interpolates
//             quaternion components linearly and glTF slerps. Where Blender puts the body
//             itself somewhere else than glTF says, on the untouched input too (seen: the
//             Sketchfab ToonCat, whose parent bone Blender places 3.9e-4 of the diagonal off
//             in the file's pose), the tail is judged against the parent's head as Blender
//             places it, and the output's body must sit no farther from glTF's place than
//             Blender puts the input's (the parent's head in the file's pose, BLENDER_ON_KEY
//             more at most). Not "where Blender puts the input's": how far off Blender puts
//             a bone depends on where its children are (its importer turns bones towards
//             them), so a tail hung from that bone moves Blender's error. The ToonCat's body
//             is 3.9e-4 off on the input, 4.2e-4 with the tail its crossing gave and 1.6e-4
//             with the tail its folds give; the node and its inverse bind matrix are the
//             input's, bit for bit, in both.
//   three     three.js plays B as sinew does: tests/reference/three_agreement.mjs (sinew's
//             skinning through reference_skin, SINEW_REFERENCE_SKIN, against GLTFLoader +
//             AnimationMixer, every clip at 10 times, 1e-5 of the world diagonal) on every B.
// Usage: node tests/motion/outputs.mjs validate|blender|three   (SINEW_BIN: folder of the CLI)
// Exit 0 ok, 1 failure, 77 skipped (blender mode without Blender installed), 2 bad usage.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const mode = process.argv[2];
if (mode !== 'validate' && mode !== 'blender' && mode !== 'three') {
  process.stderr.write('usage: node tests/motion/outputs.mjs validate|blender|three\n');
  process.exit(2);
}
const sinew = path.join(process.env.SINEW_BIN || path.join(repo, 'build', 'bin'), 'sinew');
const models = process.env.SINEW_MODELS || path.resolve(repo, '..', 'shared', 'models');
const build = process.env.SINEW_BUILD || path.join(repo, 'build');
const referenceJoints = process.env.SINEW_REFERENCE_JOINTS ||
  path.join(build, 'tests', 'reference', 'reference_joints');
// Blender against sinew on a baked key, as a fraction of the world diagonal (world positions
// where the body is on its own keys too and in the file's pose; the tail relative to its
// parent bone on every baked key). Blender poses in float32 along another chain of
// operations (each node's TRS turned to Z up, re-expressed against its edit bone by
// quaternion products, composed as pose matrices), so the two agree only to float32
// rounding grown over the hierarchy's depth: measured 3e-8..8e-7 on these files. 1e-4 leaves
// two orders of magnitude for that and is still 0.3 mm on the 2.7-unit procedural fox, while
// a frame offset or a wrong key costs far more (playing 1/24 s late: worst 1.1e-2..1.1e-1 of
// the diagonal per file). World positions on baked keys where an ancestor of the tail is
// between its own keys are printed, not judged: there Blender's component-wise interpolation
// of the BODY's rotations moves the whole tail (the Velociraptor's Death turns its Body 14
// degrees between two keys at 24 fps: 2.5e-5 of the diagonal).
const BLENDER_ON_KEY = 1e-4;
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

// Blender's name for each glTF animation's NLA track (io_scene_gltf2 3.4, find_unused_name):
// the name, or Anim_<index> when it has none, cut to 63 bytes, made unique with .001, .002...
function blenderTrackNames(file) {
  const b = fs.readFileSync(file);
  const json = JSON.parse(b.subarray(20, 20 + b.readUInt32LE(12)).toString('utf8'));
  const used = new Set();
  return (json.animations || []).map((a, i) => {
    let stem = a.name || `Anim_${i}`;
    for (let n = 1; ; n++) {
      const suffix = n === 1 ? '' : `.${String(n - 1).padStart(3, '0')}`;
      while (Buffer.byteLength(stem + suffix) > 63) stem = stem.slice(0, -1);
      if (!used.has(stem + suffix)) { used.add(stem + suffix); return stem + suffix; }
    }
  });
}

let blender = '';
if (mode === 'blender') {
  blender = spawnSync('sh', ['-c', 'command -v blender'], { encoding: 'utf8' }).stdout.trim();
  if (!blender) {
    console.log('SKIP: blender is not installed');
    process.exit(77);
  }
  if (!fs.existsSync(referenceJoints)) {
    console.log(`FAIL: ${referenceJoints} is not built (cmake --build BUILD --target reference_joints)`);
    process.exit(1);
  }
}

// 4x4 matrices as 16 numbers, row-major.
function mat4Mul(a, b) {
  const o = new Array(16).fill(0);
  for (let r = 0; r < 4; r++)
    for (let c = 0; c < 4; c++)
      for (let k = 0; k < 4; k++) o[r * 4 + c] += a[r * 4 + k] * b[k * 4 + c];
  return o;
}
function mat4Inv(m) { // Gauss-Jordan with partial pivoting
  const a = m.slice(), o = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
  for (let c = 0; c < 4; c++) {
    let p = c;
    for (let r = c + 1; r < 4; r++) if (Math.abs(a[r * 4 + c]) > Math.abs(a[p * 4 + c])) p = r;
    for (let k = 0; k < 4; k++) {
      [a[c * 4 + k], a[p * 4 + k]] = [a[p * 4 + k], a[c * 4 + k]];
      [o[c * 4 + k], o[p * 4 + k]] = [o[p * 4 + k], o[c * 4 + k]];
    }
    const d = a[c * 4 + c];
    for (let k = 0; k < 4; k++) { a[c * 4 + k] /= d; o[c * 4 + k] /= d; }
    for (let r = 0; r < 4; r++) {
      if (r === c) continue;
      const f = a[r * 4 + c];
      for (let k = 0; k < 4; k++) { a[r * 4 + k] -= f * a[c * 4 + k]; o[r * 4 + k] -= f * o[c * 4 + k]; }
    }
  }
  return o;
}
const mat4Point = (m, p) => [0, 1, 2].map((r) => m[r * 4] * p[0] + m[r * 4 + 1] * p[1] + m[r * 4 + 2] * p[2] + m[r * 4 + 3]);
// glTF (x, y, z) -> Blender (x, -z, y), what the importer does to every node.
const Y_UP_TO_Z_UP = [1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1];
const Z_UP_TO_Y_UP = mat4Inv(Y_UP_TO_Z_UP);

// Blender's bone heads (Z up) against sinew's joint positions (Y up) at the same samples;
// checks the on-key and file-pose bound and prints the worst of each kind.
// Two comparisons. World: the heads as they are, judged on baked keys where the body is on its
// own keys too. Relative to the tail's parent: sinew's tail joints carried from sinew's
// parent frame into Blender's parent frame at the same sample, which takes out how each
// player interpolates the BODY and so judges the baked tail keys alone, on every baked key.
// Blender's bone frame is the glTF node's (turned to Z up) times a constant rotation E (the
// importer's bone-axis heuristic), measured once in the file's pose:
//   E^-1 = Mb_file^-1 A Ns_file A^-1,  predicted head = Mb E^-1 A Ns^-1 p
// with Ns sinew's parent world matrix, Mb Blender's parent bone world matrix, A the axis change.
function comparePoses(stem, ref, j, inputHead) {
  check(ref.unbaked_clips.length === 0,
        `${stem}: every clip has baked Tail_1 keys${ref.unbaked_clips.length ? ` (not: ${ref.unbaked_clips.join(', ')})` : ''}`);
  check((j.missing_bones || []).length === 0 && (j.poses || []).length === ref.samples.length,
        `${stem}: Blender posed ${(j.poses || []).length}/${ref.samples.length} samples of bones ` +
        `${ref.bones.join(',')}${(j.missing_bones || []).length ? ` (missing ${j.missing_bones.join(',')})` : ''}`);
  if ((j.poses || []).length !== ref.samples.length) return;
  const diag = ref.world_diagonal;
  // Blender's offset of the parent's head from sinew's at each sample (Blender coordinates):
  // where Blender misplaces the body it is the body's error, not the tail's; elsewhere it is
  // float32 rounding. Both comparisons below are made after taking it out.
  const offsets = ref.samples.map((s, i) => {
    const h = j.poses[i].heads[0], p = s.positions[0];
    return h ? [h[0] - p[0], h[1] + p[2], h[2] - p[1]] : [0, 0, 0];
  });
  const shifted = (m, o) => { // a row-major matrix moved by -o
    if (!m) return null;
    const x = m.slice();
    for (let r = 0; r < 3; r++) x[r * 4 + 3] -= o[r];
    return x;
  };
  const worst = {};
  const count = {};
  const note = (kind, err, s, bone) => {
    count[kind] = (count[kind] || 0) + 1;
    if (!(err <= (worst[kind] || { err: 0 }).err))
      worst[kind] = { err: Number.isNaN(err) ? Infinity : err, clip: s.clip, time: s.time, bone };
  };
  const sinewParent = (s) => { // column-major -> row-major
    const m = new Array(16);
    for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) m[r * 4 + c] = s.parent_world[c * 4 + r];
    return m;
  };
  const fileIndex = ref.samples.findIndex((s) => s.kind === 'file');
  const blenderFirst = (i) => shifted(j.poses[i].first_matrix ? j.poses[i].first_matrix.flat() : null, offsets[i]);
  const eInv = fileIndex >= 0 && blenderFirst(fileIndex) ?
    mat4Mul(mat4Inv(blenderFirst(fileIndex)),
            mat4Mul(Y_UP_TO_Z_UP, mat4Mul(sinewParent(ref.samples[fileIndex]), Z_UP_TO_Y_UP))) : null;
  check(!!eInv, `${stem}: Blender's matrix of ${ref.bones[0]} in the file's pose`);
  ref.samples.forEach((s, i) => {
    const pose = j.poses[i];
    if (eInv && pose.first_matrix && s.kind !== 'file') {
      const carry = mat4Mul(mat4Mul(blenderFirst(i), eInv),
                            mat4Mul(Y_UP_TO_Z_UP, mat4Inv(sinewParent(s))));
      let rel = 0;
      let relBone = '';
      for (let b = 1; b < s.positions.length; b++) {
        const h = pose.heads[b], o = offsets[i];
        const q = mat4Point(carry, s.positions[b]);
        const e = h ? Math.hypot(h[0] - o[0] - q[0], h[1] - o[1] - q[1], h[2] - o[2] - q[2]) / diag : Infinity;
        if (!(e <= rel)) { rel = Number.isNaN(e) ? Infinity : e; relBone = ref.bones[b]; }
      }
      note(`${s.kind}, relative to ${ref.bones[0]}`, rel, s, relBone);
    }
    let err = 0;
    let bone = '';
    const o = offsets[i];
    s.positions.forEach((p, b) => {
      const h = pose.heads[b];
      const e = h ? Math.hypot(h[0] - o[0] - p[0], h[1] - o[1] + p[2], h[2] - o[2] - p[1]) / diag : Infinity;
      if (!(e <= err)) { err = Number.isNaN(e) ? Infinity : e; bone = ref.bones[b]; }
    });
    note(s.kind, err, s, bone);
    if (s.kind === 'key') note(s.ancestors_on_keys ? 'key, body on its keys too' : 'key, body between its keys', err, s, bone);
  });
  const describe = (kind) => {
    const w = worst[kind];
    return w ? `${w.err.toExponential(2)} (${count[kind]} samples; worst ${w.clip === null ? 'file pose' : `"${w.clip}" t=${w.time.toFixed(4)}`} ${w.bone})` : 'no samples';
  };
  for (const kind of ['key, body between its keys', 'between', `between, relative to ${ref.bones[0]}`])
    console.log(`     ${stem}: Blender vs sinew (not judged), ${kind}: ${describe(kind)} of the world diagonal ${diag.toPrecision(4)}`);
  const fileOffset = fileIndex >= 0 ? Math.hypot(...offsets[fileIndex]) / diag : Infinity;
  console.log(`     ${stem}: Blender places ${ref.bones[0]} ${fileOffset.toExponential(2)} of the world diagonal from glTF's place in the file's pose`);
  check((worst.file || { err: Infinity }).err <= BLENDER_ON_KEY,
        `${stem}: Blender's file pose matches sinew's within ${BLENDER_ON_KEY}: ${describe('file')}`);
  if (inputHead && fileIndex >= 0) {
    const p = ref.samples[fileIndex].positions[0]; // glTF's place, in Blender's axes
    const inputOffset = Math.hypot(inputHead[0] - p[0], inputHead[1] + p[2], inputHead[2] - p[1]) / diag;
    check(fileOffset <= inputOffset + BLENDER_ON_KEY,
          `${stem}: Blender places the output's body (${ref.bones[0]}) no farther from glTF's place than the input's (+${BLENDER_ON_KEY}): ` +
          `${fileOffset.toExponential(2)} against ${inputOffset.toExponential(2)} of the world diagonal`);
  }
  const onKey = 'key, body on its keys too';
  check((worst[onKey] || { err: Infinity }).err <= BLENDER_ON_KEY,
        `${stem}: Blender plays the baked keys as sinew does within ${BLENDER_ON_KEY} of the world diagonal: ${describe(onKey)}`);
  const relKey = `key, relative to ${ref.bones[0]}`;
  check((worst[relKey] || { err: Infinity }).err <= BLENDER_ON_KEY,
        `${stem}: on every baked key, the tail relative to ${ref.bones[0]} within ${BLENDER_ON_KEY}: ${describe(relKey)}`);
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
  } else if (mode === 'three') {
    // three_agreement.mjs names models relative to SINEW_MODELS: point it at the folder of
    // the baked files so that each line names one of them.
    const r = spawnSync('node', [path.join(repo, 'tests', 'reference', 'three_agreement.mjs'),
      ...pairs.map((p) => p.baked)], { encoding: 'utf8', timeout: 600000,
      env: { ...process.env, SINEW_MODELS: tmp } });
    process.stdout.write(r.stdout.split('\n').filter(Boolean).map((l) => `     three: ${l}\n`).join(''));
    if (r.stderr) process.stdout.write(r.stderr);
    check(r.status === 0, `three_agreement.mjs on ${pairs.length} baked files (exit ${r.status})`);
    for (const p of pairs) {
      const name = path.basename(p.baked);
      const line = r.stdout.split('\n').find((l) => l.slice(5).startsWith(`${name}:`));
      const m = line && /max error (\S+) of world diagonal/.exec(line);
      check(!!line && line.startsWith('ok  ') && !!m,
            `${p.stem}: three.js plays the baked file as sinew does (worst ${m ? m[1] : '?'} of the world diagonal)`);
    }
  } else {
    for (const p of pairs) {
      const out = path.join(tmp, `${p.stem}.json`);
      // sinew's joints at the chosen (clip, time) pairs, then one Blender start that imports
      // the file (the import checks below) and dumps its pose at the same pairs.
      const refOut = path.join(tmp, `${p.stem}_joints.json`);
      const rr = run(referenceJoints, [p.baked, refOut]);
      check(rr.status === 0, `${p.stem}: reference_joints (exit ${rr.status})`);
      if (rr.status !== 0) continue;
      const ref = JSON.parse(fs.readFileSync(refOut, 'utf8'));
      const tracks = blenderTrackNames(p.baked);
      const request = path.join(tmp, `${p.stem}_poses.json`);
      fs.writeFileSync(request, JSON.stringify({
        bones: ref.bones,
        samples: ref.samples.map((x) => ({ animation: x.clip === null ? null : tracks[x.gltf_animation], time: x.time })),
      }));
      const started = Date.now();
      const r = run(blender, ['-b', '--factory-startup', '--python-exit-code', '1', '-P',
        path.join(repo, 'tests', 'tools', 'blender_import.py'), '--', p.baked, out, '--pose', request], 180000);
      const seconds = (Date.now() - started) / 1000;
      const j = fs.existsSync(out) ? JSON.parse(fs.readFileSync(out, 'utf8')) : {};
      check(r.status === 0 && j.ok === true, `${p.stem}: Blender imports the baked file (exit ${r.status}${j.error ? `, ${j.error}` : ''}; ${seconds.toFixed(1)} s)`);
      if (!j.ok) continue;
      // Where Blender puts the tail's parent in the untouched input's file pose.
      let inputHead = null;
      if (p.input !== fox) {
        const inReq = path.join(tmp, `${p.stem}_input_poses.json`), inOut = path.join(tmp, `${p.stem}_input.json`);
        fs.writeFileSync(inReq, JSON.stringify({ bones: [ref.bones[0]], samples: [{ animation: null, time: 0 }] }));
        const ri = run(blender, ['-b', '--factory-startup', '--python-exit-code', '1', '-P',
          path.join(repo, 'tests', 'tools', 'blender_import.py'), '--', p.input, inOut, '--pose', inReq], 180000);
        const ji = ri.status === 0 && fs.existsSync(inOut) ? JSON.parse(fs.readFileSync(inOut, 'utf8')) : {};
        inputHead = ji.ok && ji.poses && ji.poses[0].heads[0];
        check(!!inputHead, `${p.stem}: Blender imports the input and places ${ref.bones[0]}`);
      }
      comparePoses(p.stem, ref, j, inputHead);
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
