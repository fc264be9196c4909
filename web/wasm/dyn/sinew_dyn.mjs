// sinew's spring-chain runtime (src/dyn, compiled to WebAssembly by build.sh) for Node and
// the browser. Same numbers as the native library: see tests/dyn/test_wasm.mjs.
//
//   import { loadSinewDyn } from './sinew_dyn.mjs';
//   const dyn = await loadSinewDyn(bytesOrUrl);           // ArrayBuffer/Uint8Array or URL
//   const rig = dyn.createRig({ parents, inverseBinds, rest, names, size }, { chain, params });
//   const rot = rig.step(worldMatrices /* Float32Array, 16 per node */, dt);  // Float32Array
//   rig.free();
//
// Skeleton arrays: parents (Int32Array-like, -1 for roots, parent before child),
// inverseBinds (16 floats per node, column-major; every node is a joint), rest (10 floats per
// node: translation xyz, rotation xyzw, scale xyz), names (strings; Tail_1.. and Tail_End are
// found by name unless `chain` lists node indices), size (the model's reference size, the
// 1.91 m fox scale rule). params: an object with sinew_dyn_params' field names in
// camelCase (frequencyRoot, dampingRatio, gravity, carry, restCurve, ...); omitted = default.

const PARAM_FIELDS = [
  'frequencyRoot', 'frequencyTip', 'dampingRatio', 'gravity', 'carry', 'restCurve',
  'curvature', 'couplingRate', 'bendLimit', 'floorHeight', 'floorClearance',
  'contactDamping', 'maxStep', 'maxSubsteps', 'teleportDistance', 'referenceSize', 'disable',
];

export const DISABLE = Object.freeze({
  COUPLING: 1, LIMIT: 2, FLOOR: 4, FORWARD_PLANE: 8, GRAVITY: 16, CARRY: 32, TELEPORT: 64,
});

async function bytesOf(source) {
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return source;
  if (typeof source === 'string' || source instanceof URL) {
    const url = source instanceof URL ? source : new URL(source, import.meta.url);
    if (url.protocol === 'file:') {
      const { readFile } = await import('node:fs/promises');
      return readFile(url);
    }
    const res = await fetch(url);
    if (!res.ok) throw new Error(`sinew_dyn: cannot fetch ${url}: ${res.status}`);
    return res.arrayBuffer();
  }
  throw new TypeError('sinew_dyn: pass the wasm bytes or a URL');
}

export async function loadSinewDyn(source = 'sinew_dyn.wasm') {
  const ENOSYS = 52; // the runtime never does I/O; stdio is linked only for error messages
  const wasi = { fd_close: () => ENOSYS, fd_seek: () => ENOSYS, fd_write: () => ENOSYS };
  const { instance } = await WebAssembly.instantiate(await bytesOf(source),
    { wasi_snapshot_preview1: wasi });
  const x = instance.exports;
  x._initialize();
  const mem = () => x.memory.buffer;
  const f32 = (ptr, n) => new Float32Array(mem(), ptr, n);
  const i32 = (ptr, n) => new Int32Array(mem(), ptr, n);
  const cstring = (ptr) => {
    const b = new Uint8Array(mem(), ptr);
    let end = 0;
    while (b[end]) end++;
    return new TextDecoder().decode(b.subarray(0, end));
  };
  const check = (ok, what) => {
    if (!ok) throw new Error(`sinew_dyn: ${what}: ${cstring(x.sdyn_last_error())}`);
  };

  function createRig(skeleton, { chain = null, endNode = -1, params = {} } = {}) {
    const n = skeleton.parents.length;
    const model = x.sdyn_model_new(n);
    check(model, 'model');
    i32(x.sdyn_model_parents(model), n).set(skeleton.parents);
    f32(x.sdyn_model_ibms(model), 16 * n).set(skeleton.inverseBinds);
    f32(x.sdyn_model_rest(model), 10 * n).set(skeleton.rest);
    const enc = new TextEncoder();
    (skeleton.names || []).forEach((name, i) => {
      const bytes = enc.encode(name).subarray(0, 63);
      new Uint8Array(mem(), x.sdyn_model_name(model, i), 64).set(bytes);
    });
    x.sdyn_model_finish(model, skeleton.size || 0);
    const p = x.sdyn_malloc(4 * PARAM_FIELDS.length);
    f32(p, PARAM_FIELDS.length).set(PARAM_FIELDS.map((k) => params[k] || 0));
    let c = 0;
    if (chain) {
      c = x.sdyn_malloc(4 * chain.length);
      i32(c, chain.length).set(chain);
    }
    const rig = x.sdyn_rig_create(model, c, chain ? chain.length : 0, endNode, p);
    x.sdyn_free(p);
    if (c) x.sdyn_free(c);
    x.sdyn_model_free(model);
    check(rig, 'rig');
    const joints = x.sdyn_rig_joint_count(rig);
    const nodes = x.sdyn_rig_node_count(rig);
    const state = x.sdyn_state_new(rig);
    const world = x.sdyn_malloc(64 * nodes);
    const out = x.sdyn_malloc(16 * joints);
    const particles = x.sdyn_malloc(24 * joints);
    return {
      joints,
      nodes,
      jointNodes: Array.from({ length: joints }, (_, i) => x.sdyn_rig_joint_node(rig, i)),
      parentNode: x.sdyn_rig_parent_node(rig),
      // worldMatrices: 16 floats per node (only the chain parent's is read). floor: undefined
      // (the params' floor), null (off) or a height. Returns joints local rotations (xyzw).
      step(worldMatrices, dt, floor) {
        f32(world, 16 * nodes).set(worldMatrices.subarray
          ? worldMatrices.subarray(0, 16 * nodes) : worldMatrices.slice(0, 16 * nodes));
        const mode = floor === undefined ? -1 : floor === null ? 0 : 1;
        const r = x.sdyn_step(rig, state, world, nodes, dt, out, mode, floor || 0);
        check(r === 0, 'step');
        return f32(out, 4 * joints).slice();
      },
      reset() { x.sdyn_state_reset(state); },
      // Tip particles: { positions, velocities } as Float32Arrays of 3 * joints.
      particles() {
        x.sdyn_state_get(state, particles, particles + 12 * joints);
        return { positions: f32(particles, 3 * joints).slice(),
          velocities: f32(particles + 12 * joints, 3 * joints).slice() };
      },
      free() {
        x.sdyn_free(state); x.sdyn_free(world); x.sdyn_free(out); x.sdyn_free(particles);
        x.sdyn_rig_free(rig);
      },
    };
  }
  return { createRig, DISABLE };
}
