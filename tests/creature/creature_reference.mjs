// The creatures as other tools see them: `sinew creature KIND -o X.glb --truth X.json` for every
// kind and `sinew creature --random SEED ...` for a handful of seeds (between them: both body
// plans, sunk, welded and rigged tails, a flat Sketchfab hierarchy, X and world-aligned bone
// axes, IK helper joints, units from 0.01 to 100 per metre), then
//   - the Khronos glTF-Validator reports 0 errors and 0 warnings;
//   - three.js (GLTFLoader in plain Node) loads one SkinnedMesh whose vertex count is the
//     truth's, with the kind's joints and clips (the fox: Walk, Sprint, Crouch, Idle; random
//     creatures: Walk, Idle);
//   - every clip loops in three.js too: the skinned mesh at t = 0 and at t = duration (LoopOnce,
//     clampWhenFinished, so setTime(duration) does not wrap) agree within 1e-6 of the height,
//     and the middle of the clip differs from both (it moves);
//   - Blender 3.4 (headless, tests/tools/blender_import.py) imports the fox with its 22 bones and
//     four actions (skipped, saying so, when `blender` is not installed).
// Exit 0 when all hold, 1 otherwise.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';

const require = createRequire(import.meta.url);
const validator = require('gltf-validator');
const bin = path.join(process.env.SINEW_BIN || 'build/bin', 'sinew');
const kinds = ['fox', 'mouse', 'caped', 'skirt', 'quiver', 'rabbit', 'lizard'];
const randomSeeds = [1, 3, 5, 19, 20, 33, 36];
const creatures = kinds.map((k) => ({ name: k, args: [k] }))
  .concat(randomSeeds.map((s) => ({ name: `random${s}`, args: ['--random', String(s)] })));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sinew-creature-'));
let failures = 0;
function check(ok, what) {
  if (!ok) {
    failures++;
    console.log(`FAIL: ${what}`);
  }
}

function skinned(mesh, root) {
  const out = new Float64Array(mesh.geometry.attributes.position.count * 3);
  const v = new THREE.Vector3();
  root.updateMatrixWorld(true); // bones are not children of the mesh
  for (let i = 0; i < out.length / 3; i++) {
    mesh.getVertexPosition(i, v);
    v.applyMatrix4(mesh.matrixWorld);
    out[i * 3] = v.x, out[i * 3 + 1] = v.y, out[i * 3 + 2] = v.z;
  }
  return out;
}

function maxDiff(a, b) {
  let m = 0;
  for (let i = 0; i < a.length; i += 3)
    m = Math.max(m, Math.hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]));
  return m;
}

for (const { name: kind, args } of creatures) {
  const glbPath = path.join(dir, `${kind}.glb`), truthPath = path.join(dir, `${kind}.json`);
  execFileSync(bin, ['creature', ...args, '-o', glbPath, '--truth', truthPath]);
  const bytes = new Uint8Array(fs.readFileSync(glbPath));
  const truth = JSON.parse(fs.readFileSync(truthPath, 'utf8'));

  const report = await validator.validateBytes(bytes, { uri: `${kind}.glb`, maxIssues: 0 });
  check(report.issues.numErrors === 0 && report.issues.numWarnings === 0,
        `${kind}: validator ${report.issues.numErrors} errors, ${report.issues.numWarnings} warnings`);

  const gltf = await new Promise((resolve, reject) =>
    new GLTFLoader().parse(bytes.buffer, '', resolve, (e) => reject(e)));
  const meshes = [];
  gltf.scene.traverse((o) => { if (o.isSkinnedMesh) meshes.push(o); });
  check(meshes.length === 1, `${kind}: ${meshes.length} skinned meshes`);
  const mesh = meshes[0];
  check(mesh.geometry.attributes.position.count === truth.vertex_count,
        `${kind}: ${mesh.geometry.attributes.position.count} vertices vs truth ${truth.vertex_count}`);
  const bones = mesh.skeleton.bones.map((b) => b.name);
  const tail = truth.pieces[truth.tail_piece];
  // three sanitises node names ("mixamorig:Hips" becomes "mixamorigHips")
  const attach = tail && THREE.PropertyBinding.sanitizeNodeName(tail.attach_joint);
  if (tail) check(bones.includes(attach), `${kind}: no bone ${attach} (${bones})`);
  const clips = gltf.animations.map((c) => c.name);
  const want = kind === 'fox' ? ['Walk', 'Sprint', 'Crouch', 'Idle']
    : (truth.kind === 'random' ? ['Walk', 'Idle'] : ['Walk']);
  for (const w of want) check(clips.includes(w), `${kind}: no clip ${w} (${clips})`);

  for (const clip of gltf.animations) {
    const mixer = new THREE.AnimationMixer(gltf.scene);
    const action = mixer.clipAction(clip);
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
    mixer.setTime(0);
    const first = skinned(mesh, gltf.scene);
    mixer.setTime(clip.duration * 0.5);
    const middle = skinned(mesh, gltf.scene);
    mixer.setTime(clip.duration);
    const last = skinned(mesh, gltf.scene);
    const closed = maxDiff(first, last), moved = maxDiff(first, middle);
    check(closed <= 1e-6 * truth.height, `${kind} ${clip.name}: loop gap ${closed}`);
    check(moved > 0.01 * truth.height, `${kind} ${clip.name}: moves only ${moved}`);
    mixer.stopAllAction();
    mixer.uncacheRoot(gltf.scene);
  }
  console.log(`${kind}: ${truth.vertex_count} vertices, ${bones.length} bones, clips ${clips.join(' ')}`);
}
// Blender: the fox imports with its armature and clips.
let blender = true;
try {
  execFileSync('blender', ['--version'], { stdio: 'ignore' });
} catch {
  blender = false;
  console.log('note: blender is not installed: skipping the Blender import');
}
if (blender) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const blenderScript = path.resolve(here, '..', 'tools', 'blender_import.py');
  const out = path.join(dir, 'fox_blender.json');
  try {
    execFileSync('blender', ['-b', '--factory-startup', '--python-exit-code', '1', '-P',
                             blenderScript, '--', path.join(dir, 'fox.glb'), out],
                 { stdio: 'pipe', timeout: 240000 });
    const j = JSON.parse(fs.readFileSync(out, 'utf8'));
    const bones = j.armatures.length === 1 ? j.armatures[0].bones : [];
    check(j.ok && bones.length === 22 && bones.includes('mixamorig:Hips'),
          `blender: armature ${JSON.stringify(j.armatures).slice(0, 200)}`);
    const actions = j.actions.map((a) => a.name.replace(/_Armature$/, '')).sort();
    check(JSON.stringify(actions) === JSON.stringify(['Crouch', 'Idle', 'Sprint', 'Walk']),
          `blender: actions ${actions}`);
    check(j.meshes.length === 1 && j.meshes[0].skinned, 'blender: one skinned mesh');
    console.log(`blender: fox imported, ${bones.length} bones, actions ${actions.join(' ')}`);
  } catch (e) {
    check(false, `blender import failed: ${e.message} ${String(e.stdout).slice(-1500)}`);
  }
}
fs.rmSync(dir, { recursive: true, force: true });
console.log(failures ? `${failures} failure(s)` : 'all creatures valid and looping in three.js');
process.exit(failures ? 1 : 0);
