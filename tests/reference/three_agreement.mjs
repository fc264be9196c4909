// The three.js agreement test: sinew's linear blend skinning must
// match three.js (GLTFLoader + AnimationMixer + SkinnedMesh.getVertexPosition) on every model
// in ../shared/models (notail/ included) and every clip, at 10 times per clip
// (t = duration * k / 9), within 1e-5 of the model's diagonal.
//
// "The model's diagonal" here is the diagonal of the skinned mesh's world-space box in the
// file's pose (reference_skin's world_size), not sinew_model.size, which is the bind-space
// box: the two differ wildly when the skin matrices scale (quaternius_TRex: bind-space
// diagonal 0.35, world about 40 times that), and an error means something only against the
// size a user sees. Both are printed.
//
// How it runs: for each model, tests/reference/reference_skin (C, sinew's io + model + skin)
// writes sinew's positions; this script loads the same file with three.js in plain Node (no
// DOM: images, textures and materials are stripped and a .gltf is repacked into a GLB first,
// so no image decoder or fetch is needed), plays each clip with LoopOnce +
// clampWhenFinished and mixer.setTime(t) (setTime(duration) would wrap to 0 otherwise), and
// compares vertex by vertex.
//
// The frames, worked out from three's sources (r187):
//   - GLTFLoader binds every SkinnedMesh with mesh.bind(skeleton, identity), so
//     bindMatrix = I, and in the default AttachedBindMode updateMatrixWorld() sets
//     bindMatrixInverse = inverse(mesh.matrixWorld).
//   - SkinnedMesh.applyBoneTransform computes
//       p3 = bindMatrixInverse * sum_j w_j (bone_j.matrixWorld * boneInverse_j) * bindMatrix * v
//     with boneInverse_j = the glTF inverse bind matrix IBM_j.
//   - sinew's positions are p = sum_j w_j (world(joint_j) * IBM_j) * v, the glTF rule that
//     ignores the skinned mesh node's own transform.
//   So p = mesh.matrixWorld * p3: we apply the SkinnedMesh's matrixWorld to three's result.
//   quaternius_TRex/Velociraptor (skinned mesh node with its own transform) and CesiumMan
//   (skinned mesh under a transformed parent) exercise exactly this.
// Three deliberate differences with a bare three.js scene, all per the glTF spec:
//   - weights: glTF requires normalised weights; sinew normalises files that are not
//     (CesiumMan, RobotExpressive) and three does not, so we call normalizeSkinWeights() on
//     three's meshes (otherwise three scales those vertices toward the origin).
//   - morph targets: sinew's model ignores morph weights (they pass through in the
//     document), so morphTargetInfluences are zeroed after each setTime (RobotExpressive).
//   - rotations: glTF requires unit quaternions. SimpleSkin's keys (0, 0, 0.707, 0.707) are
//     0.99985 long; sinew normalises them, three composes the raw quaternion, which scales
//     the joint matrix by |q|^2 (2e-4 of the diagonal there). We normalise three's rotation
//     keys and the nodes' loaded rotations before playing.
// Vertex order: sinew concatenates the primitives of the chosen skin's nodes; each of its
// mesh ranges names (gltf_node, gltf_mesh, gltf_primitive), and three's parser.associations
// maps each SkinnedMesh to {meshes, primitives} (and its node, or its parent Group's node).
//
// Exit: 0 all agree, 1 a mismatch or a failure (or reference_skin not built), 77 skipped (no
// models folder), which ctest reports as skipped.
// By hand: SINEW_BUILD=build-checks node tests/reference/three_agreement.mjs [MODEL...]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as THREE from 'three';

import { clipPlayer, parseThree, unitRotations } from '../tools/three_gltf.mjs';

const TOLERANCE = 1e-5; // of the model's diagonal
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const modelsDir = process.env.SINEW_MODELS || path.resolve(repo, '..', 'shared', 'models');
const refBin = process.env.SINEW_REFERENCE_SKIN ||
  path.join(process.env.SINEW_BUILD || path.join(repo, 'build'), 'tests', 'reference', 'reference_skin');

function skip(why) {
  console.log(`SKIP: ${why}`);
  process.exit(77);
}
if (!fs.existsSync(modelsDir)) skip(`${modelsDir} is absent: no shared models to compare on`);
if (!fs.existsSync(refBin)) {
  console.log(`FAIL: ${refBin} is not built (cmake --build BUILD --target reference_skin)`);
  process.exit(1);
}

// Models: every .glb/.gltf in the folder and in notail/, or the files given as arguments.
function listModels() {
  if (process.argv.length > 2) return process.argv.slice(2).map((f) => path.resolve(f));
  const out = [];
  for (const dir of [modelsDir, path.join(modelsDir, 'notail')]) {
    if (!fs.existsSync(dir)) continue;
    for (const f of fs.readdirSync(dir).sort())
      if (/\.(glb|gltf)$/i.test(f)) out.push(path.join(dir, f));
  }
  return out;
}

function runReference(file, prefix) {
  execFileSync(refBin, [file, prefix], { stdio: ['ignore', 'inherit', 'inherit'] });
  const meta = JSON.parse(fs.readFileSync(`${prefix}.json`, 'utf8'));
  const buf = fs.readFileSync(`${prefix}.bin`);
  const positions = new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4);
  return { meta, positions };
}

async function checkModel(file, tmp) {
  const name = path.relative(modelsDir, file);
  const prefix = path.join(tmp, name.replace(/[\\/]/g, '_'));
  const { meta, positions } = runReference(file, prefix);
  const gltf = await parseThree(file);
  const scene = gltf.scene;
  const assoc = gltf.parser.associations;

  // SkinnedMeshes by "node/mesh/primitive".
  const byKey = new Map();
  scene.traverse((o) => {
    if (!o.isSkinnedMesh) return;
    const m = assoc.get(o) || {};
    const node = m.nodes !== undefined ? m.nodes : (assoc.get(o.parent) || {}).nodes;
    byKey.set(`${node}/${m.meshes}/${m.primitives ?? 0}`, o);
    o.normalizeSkinWeights();
  });
  const ranges = meta.ranges.map((r) => {
    const key = `${r.gltf_node}/${r.gltf_mesh}/${r.gltf_primitive}`;
    const mesh = byKey.get(key);
    if (!mesh) throw new Error(`${name}: three has no SkinnedMesh for node/mesh/primitive ${key}`);
    const count = mesh.geometry.attributes.position.count;
    if (count !== r.vertex_count)
      throw new Error(`${name}: range ${key}: sinew has ${r.vertex_count} vertices, three ${count}`);
    return { ...r, mesh };
  });
  const covered = ranges.reduce((s, r) => s + r.vertex_count, 0);
  if (covered !== meta.vertex_count)
    throw new Error(`${name}: ranges cover ${covered} of ${meta.vertex_count} vertices`);

  // The file's pose, restored before each clip so no clip sees another's leftovers.
  const { mixer, start } = clipPlayer(THREE, scene);
  unitRotations(gltf); // see the header
  const diag = meta.world_size.diagonal;
  if (!(diag > 0)) throw new Error(`${name}: diagonal ${diag}`);
  const v = new THREE.Vector3();
  let worst = { err: 0 };
  const failures = [];
  const nv = meta.vertex_count;
  meta.clips.forEach((clipMeta, c) => {
    const clip = gltf.animations[clipMeta.gltf_animation];
    if (!clip) throw new Error(`${name}: three has no animation ${clipMeta.gltf_animation}`);
    start(clip);
    let clipWorst = 0;
    clipMeta.times.forEach((t, k) => {
      mixer.setTime(t);
      for (const r of ranges) if (r.mesh.morphTargetInfluences) r.mesh.morphTargetInfluences.fill(0);
      scene.updateMatrixWorld(true);
      const base = (c * meta.times_per_clip + k) * nv;
      for (const r of ranges) {
        for (let i = 0; i < r.vertex_count; i++) {
          r.mesh.getVertexPosition(i, v).applyMatrix4(r.mesh.matrixWorld);
          const o = (base + r.first_vertex + i) * 3;
          const err = Math.hypot(v.x - positions[o], v.y - positions[o + 1], v.z - positions[o + 2]) / diag;
          if (!(err <= clipWorst)) clipWorst = Number.isNaN(err) ? Infinity : err;
          if (!(err <= worst.err)) {
            worst = { err: Number.isNaN(err) ? Infinity : err, clip: clipMeta.name, t, vertex: r.first_vertex + i,
                      sinew: [positions[o], positions[o + 1], positions[o + 2]], three: [v.x, v.y, v.z] };
          }
        }
      }
    });
    if (!(clipWorst <= TOLERANCE)) failures.push(`${clipMeta.name} (${clipWorst.toExponential(2)})`);
  });
  return { name, vertices: nv, clips: meta.clips.length, diag, bindDiag: meta.size.diagonal, worst, failures };
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sinew-ref-'));
let failed = 0;
let checked = 0;
try {
  for (const file of listModels()) {
    try {
      const r = await checkModel(file, tmp);
      checked++;
      const ok = r.failures.length === 0;
      if (!ok) failed++;
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${r.name}: ${r.vertices} vertices, ${r.clips} clips x 10 times, ` +
        `max error ${r.worst.err.toExponential(2)} of world diagonal ${r.diag.toPrecision(4)} ` +
        `(bind-space ${r.bindDiag.toPrecision(4)}; limit ${TOLERANCE})`);
      if (!ok) {
        console.log(`     clips over the limit: ${r.failures.join(', ')}`);
        console.log(`     worst: clip "${r.worst.clip}" t=${r.worst.t} vertex ${r.worst.vertex} ` +
          `sinew ${JSON.stringify(r.worst.sinew)} three ${JSON.stringify(r.worst.three)}`);
      }
    } catch (e) {
      failed++;
      console.log(`FAIL ${path.relative(modelsDir, file)}: ${e.message}`);
    }
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(`${checked} models compared, ${failed} failed`);
process.exit(failed ? 1 : 0);
