// Compressed input, end to end: Draco, meshopt and quantized copies of shared models, made
// here with gltf-transform's CLI (npm @gltf-transform/cli, pinned in package.json), go through
// `sinew convert` and `sinew tail`, and what sinew writes must play in three.js exactly as
// gltf-transform's own decoded copy of the same compressed file does: every skinned vertex,
// at 5 times of every clip, within 1e-5 of the model's world diagonal. Draco and meshopt's
// default settings are lossy (they quantize), so the reference is the decoded copy
// (`gltf-transform copy`, which decodes both), never the original. Every output must also
// pass the Khronos glTF-Validator with 0 errors and name none of the compression extensions,
// and a `--meshopt` re-encoding of each output must play the same again in three.js, decoded
// by three's own MeshoptDecoder.
//
// Exit: 0 all agree, 1 a mismatch or a failure, 77 skipped (no shared models folder).
// By hand: node tests/io/compressed_three.mjs [MODEL...]   (from the repository root)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import * as THREE from 'three';
import { MeshoptDecoder } from 'three/examples/jsm/libs/meshopt_decoder.module.js';

import { clipPlayer, parseThree, unitRotations } from '../tools/three_gltf.mjs';

const TOLERANCE = 1e-5; // of the world diagonal, as tests/reference/three_agreement.mjs
const TIMES = 5;        // per clip: t = duration * k / 4
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const models = process.env.SINEW_MODELS || path.resolve(repo, '..', 'shared', 'models');
const sinew = path.join(process.env.SINEW_BIN || path.join(repo, 'build', 'bin'), 'sinew');
const gltfTransform = path.join(repo, 'node_modules', '.bin', 'gltf-transform');
const validator = createRequire(import.meta.url)('gltf-validator');

if (!fs.existsSync(models)) {
  console.log(`SKIP: ${models} is absent: no shared models to compress`);
  process.exit(77);
}
if (!fs.existsSync(gltfTransform)) {
  console.log(`FAIL: ${gltfTransform} is missing (scripts/setup.sh installs the npm packages)`);
  process.exit(1);
}

// Inputs of `sinew convert` and the no-tail copies `sinew tail` chains.
const sources = process.argv.length > 2 ? process.argv.slice(2).map((f) => path.resolve(f)) : [
  'Fox.glb', 'quaternius_Fox.glb', 'notail/Fox.glb', 'notail/quaternius_Fox.glb',
].map((f) => path.join(models, f));
const kinds = { draco: ['draco'], meshopt: ['meshopt'], quantize: ['quantize'] };
const COMPRESSION = ['KHR_draco_mesh_compression', 'EXT_meshopt_compression'];

function glbJson(file) {
  const b = fs.readFileSync(file);
  return JSON.parse(b.subarray(20, 20 + b.readUInt32LE(12)).toString('utf8'));
}

// Skinned world positions of every SkinnedMesh (traversal order) at TIMES times of each clip.
async function play(file, meshopt = false) {
  if (meshopt) await MeshoptDecoder.ready; // three's own decoder, for sinew's --meshopt output
  const gltf = await parseThree(file, meshopt ? { meshoptDecoder: MeshoptDecoder } : {});
  const scene = gltf.scene;
  const meshes = [];
  scene.traverse((o) => {
    if (!o.isSkinnedMesh) return;
    o.normalizeSkinWeights(); // glTF asks for normalised weights; sinew repairs them on load
    meshes.push(o);
  });
  unitRotations(gltf);
  const { mixer, start } = clipPlayer(THREE, scene);
  const out = new Map();
  const v = new THREE.Vector3();
  for (const clip of gltf.animations) {
    start(clip);
    const frames = [];
    for (let k = 0; k < TIMES; k++) {
      mixer.setTime((clip.duration * k) / (TIMES - 1));
      scene.updateMatrixWorld(true);
      const pos = [];
      for (const m of meshes) {
        if (m.morphTargetInfluences) m.morphTargetInfluences.fill(0);
        for (let i = 0; i < m.geometry.attributes.position.count; i++) {
          m.getVertexPosition(i, v).applyMatrix4(m.matrixWorld);
          pos.push(v.x, v.y, v.z);
        }
      }
      frames.push(Float64Array.from(pos));
    }
    out.set(clip.name, frames);
  }
  return out;
}

// Max distance between the two plays, absolute and of the reference's world diagonal.
function compare(ref, got) {
  if (ref.size === 0) throw new Error('the reference has no clips');
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  let max = 0;
  for (const [name, frames] of ref) {
    const other = got.get(name);
    if (!other) throw new Error(`clip "${name}" is missing`);
    frames.forEach((f, k) => {
      const g = other[k];
      if (g.length !== f.length) throw new Error(`clip "${name}": ${g.length / 3} vertices, reference ${f.length / 3}`);
      for (let i = 0; i < f.length; i += 3) {
        for (let c = 0; c < 3; c++) { lo[c] = Math.min(lo[c], f[i + c]); hi[c] = Math.max(hi[c], f[i + c]); }
        const d = Math.hypot(f[i] - g[i], f[i + 1] - g[i + 1], f[i + 2] - g[i + 2]);
        if (!(d <= max)) max = Number.isNaN(d) ? Infinity : d;
      }
    });
  }
  const diag = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  return { max, diag, rel: max / diag, clips: ref.size };
}

async function validate(file) {
  const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)),
                                               { maxIssues: 0, writeTimestamp: false });
  const errors = report.issues.messages.filter((m) => m.severity === 0).map((m) => m.code);
  return { errors: report.issues.numErrors, codes: [...new Set(errors)] };
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sinew-compressed-'));
let failed = 0;
let passed = 0;
const run = (cmd, args) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
try {
  for (const src of sources) {
    const name = path.relative(models, src).replace(/[\\/]/g, '_').replace(/\.glb$/, '');
    const tail = src.includes(`${path.sep}notail${path.sep}`);
    for (const [kind, args] of Object.entries(kinds)) {
      const label = `${path.relative(models, src)} ${kind} -> sinew ${tail ? 'tail' : 'convert'}`;
      try {
        const packed = path.join(tmp, `${name}.${kind}.glb`);
        const decoded = path.join(tmp, `${name}.${kind}.decoded.glb`);
        run(gltfTransform, [...args, src, packed]);
        run(gltfTransform, ['copy', packed, decoded]);
        const used = glbJson(packed).extensionsUsed || [];
        const expect = { draco: 'KHR_draco_mesh_compression', meshopt: 'EXT_meshopt_compression',
                         quantize: 'KHR_mesh_quantization' }[kind];
        if (!used.includes(expect)) throw new Error(`gltf-transform wrote no ${expect}`);
        // The output of sinew from the compressed file, and the reference: the same command
        // on gltf-transform's decoded copy (for convert, the decoded copy itself).
        const out = path.join(tmp, `${name}.${kind}.sinew.glb`);
        const ref = tail ? path.join(tmp, `${name}.${kind}.decoded.sinew.glb`) : decoded;
        if (tail) {
          run(sinew, ['tail', packed, '-o', out]);
          run(sinew, ['tail', decoded, '-o', ref]);
        } else {
          run(sinew, ['convert', packed, out]);
        }
        const left = (glbJson(out).extensionsUsed || []).filter((e) => COMPRESSION.includes(e));
        if (left.length) throw new Error(`the output still names ${left.join(', ')}`);
        const val = await validate(out);
        if (val.errors !== 0) throw new Error(`the validator reports ${val.errors} errors: ${val.codes.join(', ')}`);
        const r = compare(await play(ref), await play(out));
        // Written again with --meshopt, decoded by three.js's MeshoptDecoder.
        const mo = path.join(tmp, `${name}.${kind}.sinew.meshopt.glb`);
        run(sinew, ['convert', '--meshopt', out, mo]);
        if (!(glbJson(mo).extensionsRequired || []).includes('EXT_meshopt_compression'))
          throw new Error('--meshopt wrote no EXT_meshopt_compression');
        const moVal = await validate(mo);
        if (moVal.errors !== 0) throw new Error(`--meshopt output: the validator reports ${moVal.errors} errors: ${moVal.codes.join(', ')}`);
        const m = compare(await play(ref), await play(mo, true));
        const sizes = [packed, out, mo].map((f) => fs.statSync(f).size);
        const ok = r.rel <= TOLERANCE && m.rel <= TOLERANCE;
        if (ok) passed++;
        else failed++;
        console.log(`${ok ? 'ok  ' : 'FAIL'} ${label}: ${r.clips} clips x ${TIMES} times, max position ` +
          `difference ${r.max.toExponential(2)} (${r.rel.toExponential(2)} of diagonal ${r.diag.toPrecision(4)}); ` +
          `--meshopt ${m.max.toExponential(2)}; validator 0 errors; bytes ${sizes.join(' -> ')}`);
      } catch (e) {
        failed++;
        console.log(`FAIL ${label}: ${e.stderr ? e.stderr.toString().trim() : e.message}`);
      }
    }
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed || passed === 0 ? 1 : 0);
