// One loaded .glb: the three.js scene under a placement group, its clips and samplers, the rest
// pose to return to, and the skin samples used for the floor and for camera framing.
//
// Floor placement (after Sidorkin, "Animating tails the auto-rigger never gave a bone": the
// tail may touch the floor, it may not lift the body): the viewer used to put the lowest
// point of the whole mesh on the floor, so a tail hanging below the soles lifted the
// character. Here a vertex whose dominant joint's name matches /tail/i does not count for the
// floor; the camera still frames every vertex. As the article does, the skin is sampled
// grouped by dominant bone: per group only its extreme vertices along 13 directions (a rigid
// group's lowest point in any pose is one of its extremes), so measuring a pose costs a few
// hundred skinned vertices instead of all of them.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

export const TAIL_NAME = /tail/i;
const DIRECTIONS = [
  [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, -1, 0], [1, 0, 1], [1, 0, -1], [0, 1, 1],
  [0, 1, -1], [1, 1, 1], [1, 1, -1], [1, -1, 1], [1, -1, -1],
].map(([x, y, z]) => new THREE.Vector3(x, y, z).normalize());
const FLOOR_SAMPLES = 16; // poses per clip at which the body's lowest point is measured

const v3 = new THREE.Vector3();

// Dominant joint of every vertex of a skinned mesh (index into skeleton.bones), -1 if none.
function dominantJoints(mesh) {
  const idx = mesh.geometry.attributes.skinIndex;
  const wt = mesh.geometry.attributes.skinWeight;
  const n = mesh.geometry.attributes.position.count;
  const out = new Int32Array(n).fill(-1);
  if (!idx || !wt) return out;
  for (let v = 0; v < n; v++) {
    let best = -1;
    let bw = 0;
    for (let k = 0; k < idx.itemSize; k++) {
      const w = wt.getComponent(v, k);
      if (w > bw) { bw = w; best = idx.getComponent(v, k); }
    }
    out[v] = best;
  }
  return out;
}

// Extreme vertices of each dominant-joint group: the sample set for floor and framing.
function sampleSkin(mesh) {
  const pos = mesh.geometry.attributes.position;
  const n = pos.count;
  const skinned = mesh.isSkinnedMesh && mesh.skeleton;
  const dom = skinned ? dominantJoints(mesh) : new Int32Array(n).fill(-1);
  let rigidTail = false; // a rigid mesh parented under a tail bone is tail skin too
  for (let o = mesh.parent; o && !skinned; o = o.parent) if (o.isBone && TAIL_NAME.test(o.name)) rigidTail = true;
  const groups = new Map();
  for (let v = 0; v < n; v++) {
    let g = groups.get(dom[v]);
    if (!g) {
      g = { lo: new Float64Array(DIRECTIONS.length).fill(Infinity), hi: new Float64Array(DIRECTIONS.length).fill(-Infinity),
        loV: new Int32Array(DIRECTIONS.length), hiV: new Int32Array(DIRECTIONS.length), count: 0 };
      groups.set(dom[v], g);
    }
    g.count++;
    v3.fromBufferAttribute(pos, v);
    for (let d = 0; d < DIRECTIONS.length; d++) {
      const s = v3.dot(DIRECTIONS[d]);
      if (s < g.lo[d]) { g.lo[d] = s; g.loV[d] = v; }
      if (s > g.hi[d]) { g.hi[d] = s; g.hiV[d] = v; }
    }
  }
  const picked = new Map(); // vertex -> tail flag
  for (const [joint, g] of groups) {
    const name = skinned && joint >= 0 ? mesh.skeleton.bones[joint]?.name || '' : '';
    const tail = rigidTail || TAIL_NAME.test(name);
    for (let d = 0; d < DIRECTIONS.length; d++) { picked.set(g.loV[d], tail); picked.set(g.hiV[d], tail); }
  }
  const vertices = Int32Array.from(picked.keys());
  const tail = Uint8Array.from(picked.values(), (t) => (t ? 1 : 0));
  let tailVertices = 0;
  for (let v = 0; v < n; v++) {
    const j = dom[v];
    if (rigidTail || (skinned && j >= 0 && TAIL_NAME.test(mesh.skeleton.bones[j]?.name || ''))) tailVertices++;
  }
  return { mesh, vertices, tail, tailVertices };
}

// Samples a clip straight from its tracks into the nodes: every channel writes every time,
// so putting the rest pose back before a sample can never leave a node stale (three's
// AnimationMixer skips writes whose value did not change since its own last write). Each
// interpolant owns its result buffer: sampling allocates nothing.
class ClipSampler {
  constructor(root, clip) {
    this.clip = clip;
    this.channels = [];
    for (const track of clip.tracks) {
      const p = THREE.PropertyBinding.parseTrackName(track.name);
      const node = THREE.PropertyBinding.findNode(root, p.nodeName);
      if (!node || !['position', 'quaternion', 'scale', 'morphTargetInfluences'].includes(p.propertyName)) continue;
      if (p.propertyName === 'morphTargetInfluences' && !node.morphTargetInfluences) continue;
      this.channels.push({ node, prop: p.propertyName, interpolant: track.createInterpolant() });
    }
  }

  apply(t) {
    for (const c of this.channels) {
      const v = c.interpolant.evaluate(t);
      const n = c.node;
      if (c.prop === 'quaternion') n.quaternion.set(v[0], v[1], v[2], v[3]).normalize();
      else if (c.prop === 'position') n.position.set(v[0], v[1], v[2]);
      else if (c.prop === 'scale') n.scale.set(v[0], v[1], v[2]);
      else for (let i = 0; i < n.morphTargetInfluences.length && i < v.length; i++) n.morphTargetInfluences[i] = v[i];
    }
  }
}

export async function loadModel(buffer, name, resourcePath = '') {
  const loader = new GLTFLoader();
  let gltf;
  try {
    gltf = await loader.parseAsync(buffer, resourcePath);
  } catch (e) {
    throw new Error(`${name}: not a glTF file three.js can read (${e && e.message ? e.message : e})`);
  }
  return new Model(gltf, name);
}

export class Model {
  constructor(gltf, name) {
    this.name = name;
    this.gltf = gltf;
    this.scene = gltf.scene || gltf.scenes[0];
    if (!this.scene) throw new Error(`${name}: the file has no scene`);
    this.root = new THREE.Group();
    this.root.name = `placement:${name}`;
    this.root.add(this.scene);
    this.clips = gltf.animations || [];
    this.samplers = new Map(); // clip -> ClipSampler, made when first played
    this.sampler = null;
    this.clip = null;
    this.time = 0; // s, the clip time of the pose on the nodes
    const asset = gltf.parser?.json?.asset || {};
    this.heatNote = asset.extras?.sinew?.solve_heatmap || null;
    this.generator = asset.generator || '';

    this.nodes = [];
    this.meshes = [];
    this.bones = [];
    // A primitive without a material gets glTF's default, which is fully metallic: with no
    // environment map to reflect it renders nearly black. Such files (sinew creature, most
    // rigger output) are shown in a neutral clay instead; authored materials are kept.
    const clay = new THREE.MeshStandardMaterial({ color: 0xd9cbbb, roughness: 0.62, metalness: 0 });
    const authored = (mat) => !mat || !!gltf.parser?.associations?.get(mat);
    this.scene.traverse((o) => {
      if (o.isMesh && !Array.isArray(o.material) && !authored(o.material)) {
        const vc = o.material.vertexColors;
        o.material = vc ? clay.clone() : clay;
        o.material.vertexColors = vc;
      }
      this.nodes.push(o);
      if (o.isBone) this.bones.push(o);
      if (o.isMesh) {
        o.castShadow = true;
        o.receiveShadow = true;
        o.frustumCulled = false; // bounds come from the bind pose; animated skin leaves them
        this.meshes.push(o);
      }
    });
    if (!this.meshes.length) throw new Error(`${name}: the file has no mesh to show`);
    this.rest = this.nodes.map((o) => [o.position.clone(), o.quaternion.clone(), o.scale.clone()]);
    this.vertexCount = this.meshes.reduce((s, m) => s + m.geometry.attributes.position.count, 0);
    this.skinned = this.meshes.filter((m) => m.isSkinnedMesh);
    this.jointCount = new Set(this.skinned.flatMap((m) => m.skeleton.bones)).size;

    // Heat map: COLOR_0 shown unlit (MeshBasicMaterial ignores lights; no tone mapping, so
    // the colours on screen are the file's, as the legend draws them).
    this.hasColors = this.meshes.some((m) => m.geometry.attributes.color);
    this.original = new Map(this.meshes.map((m) => [m, m.material]));
    this.heatMaterial = new THREE.MeshBasicMaterial({ vertexColors: true, toneMapped: false });
    this.plainMaterial = new THREE.MeshBasicMaterial({ color: 0x30343c, toneMapped: false });
    this.heat = false;

    this.samples = this.meshes.map(sampleSkin);
    this.tailVertices = this.samples.reduce((s, x) => s + x.tailVertices, 0);
    this.sampleCount = this.samples.reduce((s, x) => s + x.vertices.length, 0);

    // Size from the rest pose (the larger of height and longest horizontal extent, as the
    // CLI measures it), centre for placement.
    this.applyPose(null, 0);
    const m = this.measure();
    const b = m.box;
    const ext = b.getSize(new THREE.Vector3());
    this.size = Math.max(ext.x, ext.y, ext.z) || 1;
    this.center = b.getCenter(new THREE.Vector3());
    this.restBox = b.clone();
    // Facing: horizontal direction from the body's centre to the head bone (glTF says +Z,
    // but FBX conversions often face +-X); compare mode lines models up across it.
    const head = this.bones.find((o) => /head/i.test(o.name));
    this.facing = new THREE.Vector3(0, 0, 1);
    if (head) {
      const d = new THREE.Vector3().setFromMatrixPosition(head.matrixWorld).sub(this.center);
      d.y = 0;
      if (d.length() > 0.1 * this.size) this.facing.copy(d.normalize());
      // Snap to the nearest axis: files are authored along axes, and it keeps rows straight.
      const ax = Math.abs(this.facing.x) > Math.abs(this.facing.z);
      this.facing.set(ax ? Math.sign(this.facing.x) : 0, 0, ax ? 0 : Math.sign(this.facing.z));
    }
    this.floorY = Number.isFinite(m.bodyMin) ? m.bodyMin : m.allMin;
    this.lowestAll = m.allMin;
    this.slot = new THREE.Vector3();
    this.place();
  }

  // Puts the body floor at world y = 0 and the rest-pose centre at the slot (x, -, z).
  place() {
    this.root.position.set(this.slot.x - this.center.x, -this.floorY, this.slot.z - this.center.z);
    this.root.updateMatrixWorld(true);
  }

  clipByName(name) { return this.clips.find((c) => c.name === name) || null; }

  // Selects the clip (or none: the file's rest pose) and re-measures the floor over it.
  setClip(name) {
    const clip = name ? this.clipByName(name) : null;
    if (clip !== this.clip) {
      this.clip = clip;
      if (clip && !this.samplers.has(clip)) this.samplers.set(clip, new ClipSampler(this.scene, clip));
      this.sampler = clip ? this.samplers.get(clip) : null;
    }
    this.measureFloor();
  }

  // Lowest body point over FLOOR_SAMPLES poses of the clip (or the rest pose): a walk puts
  // its planted foot on the floor, a death clip lays the body on it.
  measureFloor() {
    const saved = this.root.position.clone();
    this.root.position.set(0, 0, 0);
    let body = Infinity;
    let all = Infinity;
    const n = this.clip ? FLOOR_SAMPLES : 1;
    for (let i = 0; i < n; i++) {
      this.applyPose(this.clip, this.clip ? (this.clip.duration * i) / n : 0);
      const m = this.measure();
      body = Math.min(body, m.bodyMin);
      all = Math.min(all, m.allMin);
    }
    this.root.position.copy(saved);
    this.floorY = Number.isFinite(body) ? body : all;
    this.lowestAll = all;
    this.place();
  }

  // Rest transforms on every node, then the clip at time t (wrapped into the clip).
  applyPose(clip, t) {
    for (let i = 0; i < this.nodes.length; i++) {
      const o = this.nodes[i];
      const [p, q, s] = this.rest[i];
      o.position.copy(p); o.quaternion.copy(q); o.scale.copy(s);
    }
    this.time = 0;
    if (clip && this.sampler && clip === this.clip) {
      const d = clip.duration || 0;
      this.time = d > 0 ? (t === d ? d : ((t % d) + d) % d) : 0; // the scrub bar's end shows the last key
      this.sampler.apply(this.time);
    }
    this.root.updateMatrixWorld(true);
  }

  // World-space measures of the current pose over the skin samples.
  measure() {
    this.root.updateMatrixWorld(true);
    const box = new THREE.Box3();
    let bodyMin = Infinity;
    let allMin = Infinity;
    let tailMin = Infinity;
    for (const s of this.samples) {
      const m = s.mesh;
      for (let k = 0; k < s.vertices.length; k++) {
        if (m.isSkinnedMesh) m.getVertexPosition(s.vertices[k], v3);
        else v3.fromBufferAttribute(m.geometry.attributes.position, s.vertices[k]);
        v3.applyMatrix4(m.matrixWorld);
        box.expandByPoint(v3);
        allMin = Math.min(allMin, v3.y);
        if (s.tail[k]) tailMin = Math.min(tailMin, v3.y);
        else bodyMin = Math.min(bodyMin, v3.y);
      }
    }
    return { box, bodyMin, allMin, tailMin };
  }

  setHeat(on) {
    this.heat = on && this.hasColors;
    for (const m of this.meshes) {
      if (!this.heat) m.material = this.original.get(m);
      else m.material = m.geometry.attributes.color ? this.heatMaterial : this.plainMaterial;
      m.castShadow = !this.heat;
    }
  }

  dispose() {
    this.setHeat(false); // the authored materials back in the tree, so they are disposed too
    this.root.removeFromParent();
    this.root.traverse((o) => {
      if (o.geometry) o.geometry.dispose();
      if (o.material) for (const mat of [].concat(o.material)) {
        for (const k of Object.keys(mat)) if (mat[k] && mat[k].isTexture) mat[k].dispose();
        mat.dispose();
      }
    });
    this.heatMaterial.dispose();
    this.plainMaterial.dispose();
  }
}
