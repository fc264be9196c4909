// `sinew tail --vrm-springs` read by three-vrm, the VRM spring-bone runtime: the file made from
// notail/quaternius_Wolf.glb passes the Khronos validator with 0 errors; three-vrm's
// VRMSpringBoneLoaderPlugin (alone, with GLTFLoader in plain Node) finds one spring on the
// Tail_* chain, the floor and forward planes as extended colliders (not their fallback
// spheres); the chain swings when the hips move; and at 60 updates per second the tip's
// direction stays within MAX_RMS_DEGREES (RMS over the run) of sinew's own runtime driven by
// the same hip motion (reference_springs: sinew_dyn on the file's own chain, at the reference
// size the fit reported). The hip motion is
// the fit's (include/sinew/vrm.h): a trot forward with a sway, a bounce and a turning pelvis.
// Skips (77), saying so, when the shared models are absent.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { VRMSpringBoneLoaderPlugin } from '@pixiv/three-vrm';

// The bound, degrees of RMS angle between the two tips' directions over the 6 s run. On the
// wolf three-vrm measured 4.55 with its colliders (the fit predicted 4.34 without them); 5
// leaves room for float differences between the runtimes, not for a broken fit (the linear
// match alone predicts 34, a forward plane through the tail root without the hit radius
// measured 17).
const MAX_RMS_DEGREES = 5;
const MIN_SWING_DEGREES = 10; // the chain must visibly move when the hips do

const require = createRequire(import.meta.url);
const validator = require('gltf-validator');
const bin = path.join(process.env.SINEW_BIN || 'build/bin', 'sinew');
const build = process.env.SINEW_BUILD || 'build';
const springs = process.env.SINEW_REFERENCE_SPRINGS ||
  path.join(build, 'tests', 'reference', 'reference_springs');
const models = process.env.SINEW_MODELS || '/work/shared/models';
const input = path.join(models, 'notail', 'quaternius_Wolf.glb');
if (!fs.existsSync(input)) {
  console.log(`SKIP: ${input} is absent (the shared models are not here)`);
  process.exit(77);
}
for (const exe of [bin, springs])
  if (!fs.existsSync(exe)) {
    console.error(`missing ${exe}: build it first`);
    process.exit(1);
  }

let failures = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'}: ${what}`);
  if (!ok) failures++;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sinew-vrm-'));
try {
  const out = path.join(dir, 'W.glb');
  const report = JSON.parse(execFileSync(bin, ['tail', input, '-o', out, '--vrm-springs', '--json'],
    { maxBuffer: 1 << 26 }).toString());
  const fit = report.vrm_springs;
  check(fit && fit.joints.length >= 3, `the report has a VRM fit (${fit ? fit.joints.length : 0} joints)`);
  const bytes = new Uint8Array(fs.readFileSync(out));
  const v = await validator.validateBytes(bytes, { uri: 'W.glb', maxIssues: 0, writeTimestamp: false });
  check(v.issues.numErrors === 0, `Khronos validator: ${v.issues.numErrors} errors`);

  // ---- three-vrm ----
  const loader = new GLTFLoader();
  loader.register((parser) => new VRMSpringBoneLoaderPlugin(parser));
  const gltf = await new Promise((resolve, reject) => loader.parse(bytes.buffer, '', resolve, reject));
  const manager = gltf.userData.vrmSpringBoneManager;
  check(manager != null, 'VRMSpringBoneLoaderPlugin made a spring-bone manager');
  const joints = manager ? [...manager.joints] : [];
  check(joints.length === fit.joints.length,
        `${joints.length} VRM joints for ${fit.joints.length} chain links`);
  const shapes = manager ? manager.colliders.map((c) => c.shape.type) : [];
  check(shapes.length === 2 && shapes.every((s) => s === 'plane'),
        `colliders read as extended planes: ${JSON.stringify(shapes)}`);
  const scene = gltf.scene;
  const byName = (n) => scene.getObjectByName(THREE.PropertyBinding.sanitizeNodeName(n));
  const hips = byName(fit.parent);
  const chain = fit.joints.map((j) => byName(j.node));
  const end = byName(fit.end);
  check(hips && chain.every((b) => b) && end, `found ${fit.parent}, the chain and ${fit.end}`);
  // The loader sets the initial state before the scene's world matrices exist; a player puts
  // the character in place, then resets the springs there.
  scene.updateMatrixWorld(true);
  manager.reset();
  const w0 = hips.matrixWorld.clone();
  const c = new THREE.Vector3().setFromMatrixPosition(w0);
  const H = fit.reference_size;
  const hipsAt = (t) => { // include/sinew/vrm.h: W(t) = T(c + H d(t)) R_y(yaw(t)) T(-c) W0
    const d = new THREE.Vector3(0.06 * Math.sin(5 * t), 0.04 * Math.sin(7 * t), 0.4 * t);
    const m = new THREE.Matrix4().makeTranslation(c.x + H * d.x, c.y + H * d.y, c.z + H * d.z);
    m.multiply(new THREE.Matrix4().makeRotationY(0.35 * Math.sin(3.3 * t)));
    m.multiply(new THREE.Matrix4().makeTranslation(-c.x, -c.y, -c.z));
    return m.multiply(w0);
  };
  const dt = 1 / 60, frames = 361;
  const parentInv = new THREE.Matrix4().copy(hips.parent.matrixWorld).invert();
  const rootLocal = chain[0].position.clone();
  const vrmDirs = [], hipWorlds = [];
  const a = new THREE.Vector3(), b = new THREE.Vector3();
  for (let f = 0; f < frames; f++) {
    const hw = hipsAt(f * dt);
    hipWorlds.push(hw);
    new THREE.Matrix4().multiplyMatrices(parentInv, hw).decompose(hips.position, hips.quaternion, hips.scale);
    if (f) manager.update(dt);
    scene.updateMatrixWorld(true);
    a.copy(rootLocal).applyMatrix4(hw);
    end.getWorldPosition(b);
    vrmDirs.push(b.clone().sub(a).normalize());
  }

  // ---- sinew's runtime on the same hips, on the file's own chain (reference_springs) ----
  const motion = [`frames ${frames} dt ${dt}`, ...hipWorlds.map((m) => m.elements.join(' '))];
  const motionPath = path.join(dir, 'motion.txt');
  fs.writeFileSync(motionPath, motion.join('\n') + '\n');
  const rows = execFileSync(springs, [out, motionPath, String(H)], { maxBuffer: 1 << 26 }).toString()
    .trim().split('\n').map((l) => l.trim().split(/\s+/).map(Number));
  let sum2 = 0, swing = 0, vrmSwing = 0;
  const inHips = (d, hw) => d.clone().applyQuaternion(new THREE.Quaternion().setFromRotationMatrix(
    new THREE.Matrix4().extractRotation(hw)).invert());
  let start = null, vrmStart = null;
  rows.forEach((r, f) => {
    const ds = new THREE.Vector3(r[0] - r[3], r[1] - r[4], r[2] - r[5]).normalize();
    const e = ds.angleTo(vrmDirs[f]);
    sum2 += e * e;
    const dh = inHips(ds, hipWorlds[f]), vh = inHips(vrmDirs[f], hipWorlds[f]);
    if (!start) start = dh, vrmStart = vh;
    swing = Math.max(swing, dh.angleTo(start));
    vrmSwing = Math.max(vrmSwing, vh.angleTo(vrmStart));
  });
  const deg = 180 / Math.PI;
  const rms = Math.sqrt(sum2 / rows.length) * deg;
  check(rows.length === frames, `sinew's runtime ran ${rows.length} frames`);
  check(vrmSwing * deg >= MIN_SWING_DEGREES,
        `three-vrm swings the chain: the tip turns ${(vrmSwing * deg).toFixed(1)}° in the hips frame ` +
        `(sinew ${(swing * deg).toFixed(1)}°)`);
  check(rms <= MAX_RMS_DEGREES,
        `at 60 fps three-vrm's tip direction is ${rms.toFixed(2)}° RMS from sinew's ` +
        `(bound ${MAX_RMS_DEGREES}°; the fit predicted ${fit.predicted.error_degrees.toFixed(2)}°)`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
if (failures) {
  console.log(`${failures} check(s) failed`);
  process.exit(1);
}
console.log('vrm_springs: all checks passed');
