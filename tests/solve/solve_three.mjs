// The solved clips in a real player: `sinew solve` output checked with the Khronos
// glTF-Validator and three.js (GLTFLoader + AnimationMixer + getVertexPosition), and the
// numbers sinew prints checked against what three.js plays.
//
// three.js measures transfer quality the way sinew defines it, Q = 1 - sum |x_solved -
// x_target| / sum |x_target - x_bind|, at every key time of the source and solved clips and
// at the midpoint between consecutive ones: x_target is the source file playing its clip,
// x_solved the output file playing the solved clip, x_bind the output's skin at rest
// (bindPose); errors in % of the box diagonal of x_bind, over every skinned mesh of the file.
// Cases (the solved mesh is the source's vertex for vertex in each, so three.js can pair
// vertices by index):
//  1. the fox's Walk onto notail/Fox_parent.glb (the tail skin on the tail root's parent);
//  2. the fox's Walk onto `sinew tail notail/Fox.glb` (a tail sinew added);
//  3. every clip of the Quaternius character onto its humanoid rig: four skinned meshes (body,
//     ears, head, arms), each on its own copy of the skin; when sinew fitted and measured the
//     largest alone (781 of 1,895 vertices) it printed Q 99.95% while three.js played 79.6%;
//     each clip must play Q >= 99.5%;
//  4. the artist's flapping (Fast_Flying, Flying_Idle) of the Quaternius pigeon onto `sinew tail
//     nowing/quaternius_UM_Pigeon.glb` (the wings' bones deleted, the chains sinew grew along
//     them): each clip must play Q >= 95%;
//  5. the control run (--control -o: no --replace) of every shared model with clips: a
//     perfect answer exists, so each clip must play Q >= 99.8% with a mean error of at most
//     0.01% of the diagonal.
// In each, sinew's --report Q must agree with three.js's within Q_TOLERANCE, clip by clip and
// over all clips, and its max error within MAX_TOLERANCE. The validator must find no error in
// an output that the file it was written into did not have. Exit 0 pass, 1 fail, 77 skipped
// (no models).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import * as THREE from 'three';

import { parseThree } from '../tools/three_gltf.mjs';

const require = createRequire(import.meta.url);
const validator = require('gltf-validator');
const modelsDir = process.env.SINEW_MODELS || path.resolve('..', 'shared', 'models');
const bin = path.join(process.env.SINEW_BIN || 'build/bin', 'sinew');
const source = path.join(modelsDir, 'Fox.glb');
const parent = path.join(modelsDir, 'notail', 'Fox_parent.glb');
const notail = path.join(modelsDir, 'notail', 'Fox.glb');
const character = ['quaternius_Character.glb', 'quaternius_Character_HumanoidRig.glb']
  .map((f) => path.join(modelsDir, f));
const pigeon = path.join(modelsDir, 'quaternius_UM_Pigeon.glb');
const wingless = path.join(modelsDir, 'nowing', 'quaternius_UM_Pigeon.glb');
for (const f of [source, parent, notail, ...character, pigeon, wingless])
  if (!fs.existsSync(f)) {
    console.log(`SKIP: ${f} is absent`);
    process.exit(77);
  }
// The control runs: every model of the folder (not its notail/ and nowing/ variants, the same
// meshes) that has clips. Every clip of all 18 takes 72 s of CPU (200 s on a machine shared
// with other builds), too long beside the rest of the suite, so by default each model runs
// its first, middle and last clip in file order, plus the two whose control once failed
// (the Khronos fox's Walk; the raptor's Death, whose "Body" joint, above the hips and legs
// with no skin weight, the clip turns and moves: solved at rest, sinew printed Q 100% while
// three.js played 99.96%); SINEW_SOLVE_ALL_CLIPS=1 runs every clip.
const allClips = process.env.SINEW_SOLVE_ALL_CLIPS === '1';
const ALWAYS = ['Walk', 'Armature|Velociraptor_Death'];
const controls = [];
for (const f of fs.readdirSync(modelsDir).sort()) {
  const file = path.join(modelsDir, f);
  if (!/\.(glb|gltf)$/.test(f)) continue;
  const names = (await parseThree(file)).animations.map((a) => a.name);
  if (!names.length) continue;
  const picked = names.filter((n, i) => allClips || ALWAYS.includes(n) ||
    i === 0 || i === names.length - 1 || i === Math.floor(names.length / 2));
  controls.push({ file, clips: picked });
}
// A perfect answer exists: the control must play the artist's surface.
const CONTROL_NEED = { q: 99.8, mean: 0.01 };

// Points of Q (percent) and of max error (percent of the diagonal) by which sinew's report
// may differ from three.js (float32 sampling and skinning on both sides): on every case here
// and every clip of every control the two agree within 0.01 points of Q and 0.0001 of max
// (CesiumMan's small clips, which barely move, up to 0.010 of Q; measured 2026-12-01 with
// SINEW_SOLVE_ALL_CLIPS=1), but for SimpleSkin (below). CesiumMan's solved clips replace its
// unnamed animations now; added beside them, where three.js names both animation_<index>, they
// had three.js play the source's own clips against themselves.
const Q_TOLERANCE = 0.05;
const MAX_TOLERANCE = 0.02;
// Where the two players read one file differently, the max error may differ by more, up to the
// gap recorded here (and never more: a larger gap fails). SimpleSkin's rotation keys are off
// unit length by up to 2.3e-4 (1.000232, 0.999849: within the validator's tolerance); three.js
// composes them as they are, a rotation scaled by |q|^2 (0.046% larger, 0.03% smaller), sinew
// normalises them as the unit quaternions glTF means, so three.js plays the source up to
// 0.021% of the diagonal away from any rigid solve while sinew measures none. Q still agrees
// within Q_TOLERANCE (99.974% against 100.000%). Measured 2026-12-01.
const KNOWN_MAX_GAP = { 'control_SimpleSkin animation_0': 0.0214 };
// Key times closer than this are one time (sinew's frame planning merges them the same way).
const MERGE_SECONDS = 1e-4;

// Every skinned vertex of a loaded glTF in world space: one flat array.
function positions(gltf) {
  const v = new THREE.Vector3();
  const out = [];
  gltf.scene.updateMatrixWorld(true);
  gltf.scene.traverse((m) => {
    if (!m.isSkinnedMesh) return;
    for (let i = 0; i < m.geometry.attributes.position.count; i++) {
      m.getVertexPosition(i, v).applyMatrix4(m.matrixWorld);
      out.push(v.x, v.y, v.z);
    }
  });
  return out;
}

// A loaded glTF with each object's own transform kept, so one load plays clip after clip: a
// mixer leaves the properties its clip animates where the clip left them, and a later clip that
// does not animate them would start from there.
async function loadFile(file) {
  const gltf = await parseThree(file);
  const initial = [];
  gltf.scene.traverse((o) => initial.push([o, o.position.clone(), o.quaternion.clone(), o.scale.clone()]));
  return { gltf, initial };
}

function clipOf(loaded, file, clipName) {
  const clip = loaded.gltf.animations.find((a) => a.name === clipName);
  if (!clip) throw new Error(`${file}: no animation ${clipName}`);
  return { ...loaded, clip };
}

async function load(file, clipName) {
  return clipOf(await loadFile(file), file, clipName);
}

// World positions of every skinned vertex while `clip` plays, at each time.
function play({ gltf, clip, initial }, times) {
  for (const [o, p, q, s] of initial) o.position.copy(p), o.quaternion.copy(q), o.scale.copy(s);
  const mixer = new THREE.AnimationMixer(gltf.scene);
  const action = mixer.clipAction(clip);
  action.setLoop(THREE.LoopOnce, 1);
  action.clampWhenFinished = true;
  action.play();
  const out = times.map((t) => {
    mixer.setTime(t);
    return positions(gltf);
  });
  mixer.stopAllAction();
  mixer.uncacheRoot(gltf.scene);
  return out;
}

// The skins at rest, as the reference for "moved": every bone below a bone where its inverse
// bind matrix puts it (Skeleton.pose()), a bone below a plain node (an armature) with the
// file's own transform, which pose() would overwrite with its bind-space matrix.
function bindPose({ gltf }) {
  const top = [];
  gltf.scene.traverse((o) => {
    if (o.isBone && !(o.parent && o.parent.isBone)) top.push([o, o.matrix.clone()]);
  });
  gltf.scene.traverse((m) => { if (m.isSkinnedMesh) m.skeleton.pose(); });
  for (const [bone, matrix] of top) matrix.decompose(bone.position, bone.quaternion, bone.scale);
  return positions(gltf);
}

// Every key time of the clips (merged within MERGE_SECONDS) and the midpoints between them.
function sampleTimes(...clips) {
  const keys = [...new Set(clips.flatMap((c) => c.tracks.flatMap((t) => Array.from(t.times))))]
    .sort((a, b) => a - b);
  const merged = [];
  for (const t of keys) if (!merged.length || t > merged[merged.length - 1] + MERGE_SECONDS) merged.push(t);
  const out = [];
  merged.forEach((t, i) => {
    if (i > 0) out.push(0.5 * (merged[i - 1] + t));
    out.push(t);
  });
  return out;
}

// Q, mean and max (% of the bind pose's diagonal) of `solved` against `target`.
function quality(target, solved, bind) {
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < bind.length; i += 3)
    for (let k = 0; k < 3; k++) { lo[k] = Math.min(lo[k], bind[i + k]); hi[k] = Math.max(hi[k], bind[i + k]); }
  const diag = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  let error = 0;
  let moved = 0;
  let worst = 0;
  let n = 0;
  for (let f = 0; f < target.length; f++)
    for (let i = 0; i < bind.length; i += 3) {
      const [a, b] = [target[f], solved[f]];
      const e = Math.hypot(b[i] - a[i], b[i + 1] - a[i + 1], b[i + 2] - a[i + 2]);
      error += e;
      moved += Math.hypot(a[i] - bind[i], a[i + 1] - bind[i + 1], a[i + 2] - bind[i + 2]);
      worst = Math.max(worst, e);
      n++;
    }
  return { q: 100 * (1 - error / moved), mean: (100 * error) / n / diag, max: (100 * worst) / diag, error, moved, n, diag };
}

// The validator's errors of a file, counted by code.
async function validate(file) {
  const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
    maxIssues: 1000, externalResourceFunction: () => Promise.reject(new Error('external')) });
  const codes = {};
  for (const m of report.issues.messages) if (m.severity === 0) codes[m.code] = (codes[m.code] || 0) + 1;
  return codes;
}

// The errors of `out` that its input (`from`, the file the solve wrote into) did not have: a
// shared model may carry some (CesiumMan's unnormalised weights, the animal pack's skin
// skeletons), and the solve must add none.
async function newErrors(out, from) {
  const [had, has] = [await validate(from), await validate(out)];
  return Object.entries(has).filter(([code, n]) => n > (had[code] || 0)).map(([code, n]) => `${code} x${n}`);
}

// Solves clips `clips` (names, or 'all') of `from` onto `target` (null: the control run), then
// compares the report with three.js playing the output, clip by clip and over all of them.
// need: { q, mean } the least Q and the most mean error (percent) three.js must play per clip
// (null: no bound).
async function check(label, target, tmp, from, clips, need) {
  const start = Date.now();
  const out = path.join(tmp, `${label}.glb`);
  const report = path.join(tmp, `${label}.json`);
  const args = ['solve', '--source', from, '--clips', clips === 'all' ? 'all' : clips.join(','),
    '-o', out, '--report', report];
  if (target) args.push('--target', target, '--replace');
  else args.push('--control'); // with the keys reduced as written by default: what users get
  execFileSync(bin, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  let failed = 0;
  const errors = await newErrors(out, target || from);
  console.log(`${errors.length ? 'FAIL' : 'ok  '} validator: ${label}: ${errors.length ? errors.join(', ') : 'no'} new errors`);
  if (errors.length) failed++;

  const rep = JSON.parse(fs.readFileSync(report, 'utf8'));
  const srcFile = await loadFile(from);
  const outFile = await loadFile(out);
  const bind = bindPose(await loadFile(out));
  const fmt = (m) => `Q ${m.q.toFixed(3)}%, mean ${m.mean.toFixed(4)}%, max ${m.max.toFixed(4)}%`;
  const sum = { error: 0, moved: 0, n: 0, worst: 0, diag: 0 };
  for (const c of rep.clips) {
    const src = clipOf(srcFile, from, c.name);
    const solved = clipOf(outFile, out, c.name);
    const times = sampleTimes(src.clip, solved.clip);
    const three = quality(play(src, times), play(solved, times), bind);
    for (const k of ['error', 'moved', 'n']) sum[k] += three[k];
    sum.worst = Math.max(sum.worst, three.max);
    sum.diag = three.diag;
    const r = c.solve.quality;
    const sinew = { q: 100 * r.q, mean: r.mean_error_pct, max: r.max_error_pct };
    const maxGap = Math.max(MAX_TOLERANCE, (KNOWN_MAX_GAP[`${label} ${c.name}`] || 0) + 0.001);
    const agree = Math.abs(sinew.q - three.q) <= Q_TOLERANCE && Math.abs(sinew.max - three.max) <= maxGap;
    const why = [];
    if (!agree) why.push(`sinew and three.js differ by more than ${Q_TOLERANCE} points of Q or ${maxGap} of max`);
    if (need.q !== null && !(three.q >= need.q)) why.push(`three.js must play Q >= ${need.q}%`);
    if (need.mean !== null && !(three.mean <= need.mean)) why.push(`three.js must play mean <= ${need.mean}%`);
    if (why.length) failed++;
    console.log(`${why.length ? 'FAIL' : 'ok  '} ${label} ${c.name} at ${times.length} times: three.js ${fmt(three)}; ` +
      `sinew ${fmt(sinew)}${why.length ? ': ' + why.join('; ') : ''}`);
  }
  const all = { q: 100 * (1 - sum.error / sum.moved), mean: (100 * sum.error) / sum.n / sum.diag, max: sum.worst };
  const o = rep.overall;
  const sinew = { q: 100 * o.q, mean: o.mean_error_pct, max: o.max_error_pct };
  const agree = Math.abs(sinew.q - all.q) <= Q_TOLERANCE;
  if (!agree) failed++;
  console.log(`${agree ? 'ok  ' : 'FAIL'} ${label} overall (${rep.clips.length} clips): three.js ${fmt(all)}; sinew ${fmt(sinew)}` +
    `${agree ? '' : `: Q differs by more than ${Q_TOLERANCE} points`} (${((Date.now() - start) / 1000).toFixed(1)} s)`);
  return failed;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sinew-solve-three-'));
let failed = 0;
const started = Date.now();
try {
  const tailed = path.join(tmp, 'fox_tail.glb');
  execFileSync(bin, ['tail', notail, '-o', tailed], { stdio: 'ignore' });
  const free = { q: null, mean: null };
  failed += await check('Fox_parent', parent, tmp, source, ['Walk'], free);
  failed += await check('sinew_tail', tailed, tmp, source, ['Walk'], free);
  // The same character on two rigs, four skinned meshes each on its own copy of the skin:
  // every mesh counts, in the fit and in Q.
  failed += await check('character', character[1], tmp, character[0], 'all', { q: 99.5, mean: null });
  // Wings sinew grew, flapped as the artist flapped them.
  const winged = path.join(tmp, 'pigeon_chained.glb');
  execFileSync(bin, ['tail', wingless, '-o', winged], { stdio: 'ignore' });
  failed += await check('pigeon_wings', winged, tmp, pigeon, ['Fast_Flying', 'Flying_Idle'],
    { q: 95, mean: null });
  // The control of every shared model with clips (the Khronos fox's Walk and the raptor's
  // Death, whose "Body" joint carries no skin weight, among them).
  for (const { file, clips } of controls)
    failed += await check(`control_${path.basename(file).replace(/\.[^.]*$/, '')}`, null, tmp, file,
      clips, CONTROL_NEED);
} catch (e) {
  failed++;
  console.log(`FAIL ${e.message}`);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(`${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(failed ? 1 : 0);
