// Live springs: the Tail_* bones driven by sinew's spring-chain runtime (src/dyn compiled to
// WebAssembly by web/wasm/dyn/build.sh) instead of the clip's baked keys. Each frame the
// animated skeleton's world matrices go in (the runtime reads only the chain parent, normally
// Hips) and the chain's local rotations come out; nothing else on the character is touched
// (the tail solver never moves the hips, feet or model).
import { loadSinewDyn } from '../../wasm/dyn/sinew_dyn.mjs';
import wasmUrl from '../../generated/sinew_dyn.wasm?url';
import { TAIL_NAME } from './model.js';

let runtime = null;
export function loadRuntime() {
  if (!runtime) runtime = loadSinewDyn(new URL(wasmUrl, import.meta.url));
  return runtime;
}

// Slider values in the CLI's units (Hz, ratio, m/s^2 at the 1.91 m reference, degrees).
export const DEFAULTS = Object.freeze({ frequency: 0.9, damping: 0.65, gravity: 1, carry: 50 });

// Chains in a skeleton, found by structure rather than numbering: a chain starts at a bone
// whose name matches /tail/i (and not /end/i) under a bone that does not, and follows tail
// children down ("Tail_1".."Tail_K" from sinew tail, "Tail2_1".., "b_Tail01".. from Khronos,
// "Tail1".. from Quaternius). The tip helper is a tail child named /end/i (Tail_End).
export function findChains(bones) {
  const isLink = (b) => b && b.isBone && TAIL_NAME.test(b.name) && !/end/i.test(b.name.replace(/^.*[:|]/, ''));
  const chains = [];
  for (const b of bones) {
    if (!isLink(b) || isLink(b.parent) || !b.parent || !b.parent.isBone) continue;
    const chain = [b];
    for (let next = b.children.find(isLink); next; next = next.children.find(isLink)) chain.push(next);
    const last = chain[chain.length - 1];
    const end = last.children.find((c) => c.isBone && TAIL_NAME.test(c.name) && /end/i.test(c.name)) || null;
    chains.push({ key: b.name, bones: chain, end });
  }
  // Tail_1.. (the chain sinew tail builds first) leads, then by name.
  const first = (c) => (/(^|[:|])Tail_1$/.test(c.key) ? 0 : 1);
  return chains.sort((a, b) => first(a) - first(b) || a.key.localeCompare(b.key));
}

export class Springs {
  // model: a Model; params: slider values (DEFAULTS' units). Throws when there is no chain.
  constructor(dyn, model, params) {
    const skinned = model.skinned.find((m) => findChains(m.skeleton.bones).length);
    if (!skinned) throw new Error(`${model.name}: no Tail_1..Tail_K bone chain (make one with 'sinew tail')`);
    this.model = model;
    this.bones = skinned.skeleton.bones;
    this.chains = findChains(this.bones);
    const n = this.bones.length;
    const parents = this.bones.map((b) => this.bones.indexOf(b.parent));
    const inverseBinds = new Float32Array(16 * n);
    skinned.skeleton.boneInverses.forEach((m, i) => inverseBinds.set(m.elements, 16 * i));
    const rest = new Float32Array(10 * n);
    const restOf = new Map(model.nodes.map((o, i) => [o, model.rest[i]]));
    this.bones.forEach((b, i) => {
      const [p, q, s] = restOf.get(b) || [b.position, b.quaternion, b.scale];
      rest.set([p.x, p.y, p.z, q.x, q.y, q.z, q.w, s.x, s.y, s.z], 10 * i);
    });
    this.skeleton = { parents, inverseBinds, rest, names: this.bones.map((b) => b.name), size: model.size };
    this.dyn = dyn;
    this.world = new Float32Array(16 * n);
    this.rigs = [];
    this.setParams(params);
  }

  setParams(p) {
    this.params = { ...DEFAULTS, ...p };
    const params = {
      frequencyRoot: this.params.frequency,
      dampingRatio: this.params.damping,
      // 0 means "default" to the runtime: switch gravity off by its flag instead.
      gravity: this.params.gravity > 0 ? this.params.gravity : 0,
      carry: (this.params.carry * Math.PI) / 180,
      disable: (this.params.gravity > 0 ? 0 : this.dyn.DISABLE.GRAVITY)
        | (this.params.carry > 0 ? 0 : this.dyn.DISABLE.CARRY),
    };
    this.free();
    this.rigs = this.chains.map((c) => {
      const rig = this.dyn.createRig(this.skeleton, {
        chain: c.bones.map((b) => this.bones.indexOf(b)),
        endNode: c.end ? this.bones.indexOf(c.end) : -1,
        params,
      });
      return { rig, bones: rig.jointNodes.map((i) => this.bones[i]) };
    });
  }

  reset() { for (const r of this.rigs) r.rig.reset(); }

  // One frame: the pose (clip + placement) must already be on the bones with world matrices
  // up to date. floor: world height of the floor plane, or null for no contact.
  step(dt, floor) {
    for (let i = 0; i < this.bones.length; i++) this.world.set(this.bones[i].matrixWorld.elements, 16 * i);
    for (const { rig, bones } of this.rigs) {
      const q = rig.step(this.world, dt, floor);
      for (let j = 0; j < bones.length; j++) bones[j].quaternion.set(q[4 * j], q[4 * j + 1], q[4 * j + 2], q[4 * j + 3]);
    }
    this.model.root.updateMatrixWorld(true);
  }

  // Local rotations (x, y, z, w) of the first chain's bones, as the scene holds them now.
  rotations(chain = 0) {
    const c = this.rigs[chain];
    return c ? c.bones.map((b) => [b.quaternion.x, b.quaternion.y, b.quaternion.z, b.quaternion.w]) : [];
  }

  free() {
    for (const r of this.rigs) r.rig.free();
    this.rigs = [];
  }
}
