// Live springs: the Tail_* bones driven by sinew's spring-chain runtime (src/dyn compiled to
// WebAssembly by web/wasm/dyn/build.sh) instead of the clip's baked keys. Each frame the
// animated skeleton's world matrices go in (the runtime reads only the chain parent, normally
// Hips) and the chain's local rotations come out; nothing else on the character is touched
// (seed 000, "Etapa tres": the tail solver never moves the hips, feet or model).
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

// Chains in a skeleton: bones named <something tail something><digits> ("Tail_1", "Tail2_3",
// "b_Tail01", "Tail1"), grouped by the name without its number, linked parent to child from
// the lowest number; the tip helper is a child named like /tail.*end/i.
export function findChains(bones) {
  const groups = new Map();
  for (const b of bones) {
    const bare = b.name.replace(/^.*[:|]/, '');
    const m = /^(.*?)_?(\d+)$/.exec(bare);
    if (!m || !TAIL_NAME.test(m[1])) continue;
    if (!groups.has(m[1])) groups.set(m[1], []);
    groups.get(m[1]).push({ bone: b, n: Number(m[2]) });
  }
  const chains = [];
  for (const [key, list] of groups) {
    list.sort((a, b) => a.n - b.n);
    const chain = [list[0].bone];
    for (let i = 1; i < list.length && list[i].bone.parent === chain[chain.length - 1]; i++) chain.push(list[i].bone);
    if (!chain[0].parent || !chain[0].parent.isBone) continue;
    const last = chain[chain.length - 1];
    const end = last.children.find((c) => c.isBone && /tail.*end/i.test(c.name)) || null;
    chains.push({ key, bones: chain, end });
  }
  // Tail_1.. (the chain sinew tail builds first) leads.
  return chains.sort((a, b) => a.key.length - b.key.length || a.key.localeCompare(b.key));
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
