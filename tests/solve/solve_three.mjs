// The solved clips play in a real player: `sinew solve` output checked with the
// Khronos glTF-Validator and three.js (GLTFLoader + AnimationMixer + getVertexPosition).
//  1. Control: the Khronos fox's Walk re-solved onto itself (--control -o: no --replace) must
//     show, in three.js, the artist's surface: mean error <= 1e-4 and worst <= 1e-3 of the
//     diagonal at 10 times across the clip.
//  2. A template rig (notail/Fox_parent.glb): the mean error three.js shows must agree with
//     the mean error sinew reports for that clip (within 30%: three samples 10 times, sinew
//     every key), so the report and heatmap describe what a user will see.
// Both outputs must validate with 0 errors. Exit 0 pass, 1 fail, 77 skipped (no models).
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
const template = path.join(modelsDir, 'notail', 'Fox_parent.glb');
if (!fs.existsSync(source) || !fs.existsSync(template)) {
  console.log(`SKIP: ${source} or ${template} is absent`);
  process.exit(77);
}

// World positions of every skinned vertex of `file` playing `clipName` at each time.
async function play(file, clipName, times) {
  const gltf = await parseThree(file);
  const meshes = [];
  gltf.scene.traverse((o) => { if (o.isSkinnedMesh) meshes.push(o); });
  const clip = gltf.animations.find((a) => a.name === clipName);
  if (!clip) throw new Error(`${file}: no animation ${clipName}`);
  const mixer = new THREE.AnimationMixer(gltf.scene);
  const action = mixer.clipAction(clip);
  action.setLoop(THREE.LoopOnce, 1);
  action.clampWhenFinished = true;
  action.play();
  const v = new THREE.Vector3();
  const frames = [];
  for (const t of times) {
    mixer.setTime(t);
    gltf.scene.updateMatrixWorld(true);
    const pos = [];
    for (const m of meshes)
      for (let i = 0; i < m.geometry.attributes.position.count; i++) {
        m.getVertexPosition(i, v).applyMatrix4(m.matrixWorld);
        pos.push(v.x, v.y, v.z);
      }
    frames.push(pos);
  }
  return { frames, duration: clip.duration };
}

function compare(a, b) {
  let sum = 0;
  let worst = 0;
  let n = 0;
  let lo = [Infinity, Infinity, Infinity];
  let hi = [-Infinity, -Infinity, -Infinity];
  for (let f = 0; f < a.length; f++)
    for (let i = 0; i < a[f].length; i += 3) {
      const e = Math.hypot(a[f][i] - b[f][i], a[f][i + 1] - b[f][i + 1], a[f][i + 2] - b[f][i + 2]);
      sum += e;
      worst = Math.max(worst, e);
      n++;
      if (f === 0) for (let k = 0; k < 3; k++) { lo[k] = Math.min(lo[k], a[f][i + k]); hi[k] = Math.max(hi[k], a[f][i + k]); }
    }
  return { mean: sum / n, worst, diag: Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) };
}

async function validate(file) {
  const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
    maxIssues: 20, externalResourceFunction: () => Promise.reject(new Error('external')) });
  return report.issues.numErrors;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sinew-solve-three-'));
let failed = 0;
try {
  const control = path.join(tmp, 'control.glb');
  execFileSync(bin, ['solve', '--source', source, '--control', '--clips', 'Walk', '-o', control], { stdio: 'inherit' });
  const onto = path.join(tmp, 'template.glb');
  const report = path.join(tmp, 'report.json');
  execFileSync(bin, ['solve', '--source', source, '--target', template, '--clips', 'Walk', '-o', onto, '--replace', '--report', report], { stdio: 'inherit' });
  for (const f of [control, onto]) {
    const errors = await validate(f);
    console.log(`${errors === 0 ? 'ok  ' : 'FAIL'} validator: ${path.basename(f)}: ${errors} errors`);
    if (errors) failed++;
  }
  const ref0 = await play(source, 'Walk', [0]);
  const times = Array.from({ length: 10 }, (_, k) => (ref0.duration * k) / 9);
  const ref = await play(source, 'Walk', times);
  const c = compare(ref.frames, (await play(control, 'Walk', times)).frames);
  const okc = c.mean <= 1e-4 * c.diag && c.worst <= 1e-3 * c.diag;
  if (!okc) failed++;
  console.log(`${okc ? 'ok  ' : 'FAIL'} three.js control Walk: mean ${(100 * c.mean / c.diag).toExponential(2)}% ` +
    `worst ${(100 * c.worst / c.diag).toExponential(2)}% of diagonal ${c.diag.toPrecision(4)}`);
  const t = compare(ref.frames, (await play(onto, 'Walk', times)).frames);
  const rep = JSON.parse(fs.readFileSync(report, 'utf8'));
  const reported = rep.clips[0].solve.quality.mean_error_pct;
  const shown = (100 * t.mean) / t.diag;
  const okt = Math.abs(shown - reported) <= 0.3 * reported;
  if (!okt) failed++;
  console.log(`${okt ? 'ok  ' : 'FAIL'} three.js template Walk: mean ${shown.toFixed(4)}% of the diagonal, ` +
    `sinew reported ${reported.toFixed(4)}%`);
} catch (e) {
  failed++;
  console.log(`FAIL ${e.message}`);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
