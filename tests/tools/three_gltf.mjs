// three.js in plain Node, as the reference tests use it (tests/reference/three_agreement.mjs,
// tests/solve/solve_three.mjs): a .glb or .gltf parsed by GLTFLoader with what needs a DOM
// (images, textures, texture and material extensions) dropped and every buffer repacked into
// one GLB binary chunk, so no image decoder or fetch is needed.
import fs from 'node:fs';
import path from 'node:path';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';

// Reads a .glb or .gltf into {json, bin}: one binary buffer holding every buffer (data URIs
// decoded, external files read next to the model).
function readGltf(file) {
  const bytes = fs.readFileSync(file);
  if (bytes.readUInt32LE(0) === 0x46546c67) { // "glTF"
    let json = null;
    let bin = null;
    for (let off = 12; off + 8 <= bytes.length;) {
      const len = bytes.readUInt32LE(off);
      const type = bytes.readUInt32LE(off + 4);
      const body = bytes.subarray(off + 8, off + 8 + len);
      if (type === 0x4e4f534a) json = JSON.parse(body.toString('utf8'));
      else if (type === 0x004e4942 && !bin) bin = body;
      off += 8 + len;
    }
    // Other buffers of a GLB (with URIs) are merged like a .gltf's.
    return mergeBuffers(json, file, bin);
  }
  return mergeBuffers(JSON.parse(bytes.toString('utf8')), file, null);
}

function mergeBuffers(json, file, glbBin) {
  const parts = [];
  const offsets = [];
  let total = 0;
  (json.buffers || []).forEach((b, i) => {
    let data;
    const fallback = b.extensions?.EXT_meshopt_compression?.fallback === true;
    if (fallback && b.uri === undefined) { // bytes a meshopt decoder writes: none stored
      data = Buffer.alloc(b.byteLength);
    } else if (b.uri === undefined) {
      if (i !== 0 || !glbBin) throw new Error(`buffer ${i} has no uri and no GLB chunk`);
      data = glbBin;
    } else if (b.uri.startsWith('data:')) {
      data = Buffer.from(b.uri.slice(b.uri.indexOf(',') + 1), 'base64');
    } else {
      data = fs.readFileSync(path.resolve(path.dirname(file), decodeURIComponent(b.uri)));
    }
    total = (total + 3) & ~3;
    offsets.push(total);
    parts.push([total, data.subarray(0, b.byteLength)]);
    total += b.byteLength;
  });
  const bin = Buffer.alloc((total + 3) & ~3);
  for (const [off, data] of parts) data.copy(bin, off);
  for (const view of json.bufferViews || []) {
    view.byteOffset = (view.byteOffset || 0) + offsets[view.buffer];
    view.buffer = 0;
  }
  json.buffers = bin.length ? [{ byteLength: bin.length }] : [];
  return { json, bin };
}

// Drops what needs a DOM to decode: images, textures, and materials' references to them.
function stripImages(json) {
  delete json.images;
  delete json.textures;
  delete json.samplers;
  if (json.materials) json.materials = json.materials.map((m) => ({ name: m.name }));
  const drop = new Set(['KHR_texture_basisu', 'EXT_texture_webp', 'EXT_texture_avif',
                        'KHR_texture_transform', 'KHR_materials_variants']);
  for (const key of ['extensionsUsed', 'extensionsRequired'])
    if (json[key]) json[key] = json[key].filter((e) => !drop.has(e) && !e.startsWith('KHR_materials_'));
  return json;
}

function packGlb(json, bin) {
  let text = Buffer.from(JSON.stringify(json), 'utf8');
  const pad = (4 - (text.length % 4)) % 4;
  text = Buffer.concat([text, Buffer.alloc(pad, 0x20)]);
  const total = 12 + 8 + text.length + (bin.length ? 8 + bin.length : 0);
  const out = Buffer.alloc(total);
  out.writeUInt32LE(0x46546c67, 0);
  out.writeUInt32LE(2, 4);
  out.writeUInt32LE(total, 8);
  out.writeUInt32LE(text.length, 12);
  out.writeUInt32LE(0x4e4f534a, 16);
  text.copy(out, 20);
  if (bin.length) {
    out.writeUInt32LE(bin.length, 20 + text.length);
    out.writeUInt32LE(0x004e4942, 24 + text.length);
    bin.copy(out, 28 + text.length);
  }
  return out.buffer.slice(out.byteOffset, out.byteOffset + out.length);
}

// glTF requires unit quaternions and three composes them as stored (|q|^2 scales the joint
// matrix): every clip's rotation keys and every node's own rotation normalised, in place.
export function unitRotations(gltf) {
  for (const clip of gltf.animations)
    for (const track of clip.tracks)
      if (track.ValueTypeName === 'quaternion')
        for (let i = 0; i + 3 < track.values.length; i += 4) {
          const v = track.values;
          const n = Math.hypot(v[i], v[i + 1], v[i + 2], v[i + 3]);
          if (n > 0) for (let k = 0; k < 4; k++) v[i + k] /= n;
        }
  gltf.scene.traverse((o) => o.quaternion.normalize());
}

// Plays one clip at a time on `scene` as the reference tests sample it: start(clip) puts back
// the pose the scene had when the player was made (so no clip sees another's leftovers) and
// plays the clip once, held at its end (setTime(duration) would wrap to 0 otherwise); then
// mixer.setTime(t) poses it.
export function clipPlayer(THREE, scene) {
  const saved = [];
  scene.traverse((o) => saved.push([o, o.position.clone(), o.quaternion.clone(), o.scale.clone()]));
  const mixer = new THREE.AnimationMixer(scene);
  const start = (clip) => {
    mixer.stopAllAction();
    mixer.uncacheRoot(scene);
    for (const [o, p, q, s] of saved) { o.position.copy(p); o.quaternion.copy(q); o.scale.copy(s); }
    const action = mixer.clipAction(clip);
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
  };
  return { mixer, start };
}

// The file parsed by three.js: resolves to GLTFLoader's result ({scene, animations, parser, ...}).
// options.meshoptDecoder (three's MeshoptDecoder, awaited ready) reads EXT_meshopt_compression.
export function parseThree(file, options = {}) {
  const { json, bin } = readGltf(file);
  const glb = packGlb(stripImages(json), bin);
  const loader = new GLTFLoader();
  if (options.meshoptDecoder) loader.setMeshoptDecoder(options.meshoptDecoder);
  return new Promise((resolve, reject) =>
    loader.parse(glb, '', resolve, (e) => reject(e instanceof Error ? e : new Error(String(e)))));
}
