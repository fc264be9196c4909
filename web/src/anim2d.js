// anim2d in the browser: loads the WebAssembly build of sinew's anim2d module and reads its
// pose out of linear memory. Joint and field order mirror include/sinew/anim2d.h.
import wasmUrl from '../generated/anim2d.wasm?url';

export const Motion = { WALK: 1, RUN: 2, THROW: 3, JUMP: 4, SPEAR_FORM: 5, SPEAR_RUN: 6 };
export const Action = { JUMP: 1, THRUST: 2 };
export const J = {
  PELVIS: 0, CHEST: 1, SHOULDER: 2, NECK: 3, HEAD: 4, KNEE_NEAR: 5, KNEE_FAR: 6, FOOT_NEAR: 7,
  FOOT_FAR: 8, ELBOW_NEAR: 9, ELBOW_FAR: 10, HAND_NEAR: 11, HAND_FAR: 12, SPEAR_TIP: 13,
  SPEAR_BUTT: 14, HAIR_0: 15, HAIR_1: 16, HAIR_2: 17, HAIR_3: 18,
};
export const JOINT_COUNT = 19;
// Scalars after the joints, in sinew_anim2d_pose order.
const FIELDS = ['headRadius', 'sx', 'sy', 'spearAlpha', 'scrollSpeed', 'groundOffset', 'thrust',
  'lift', 'blend', 'phase', 'gait', 'motionTime'];

export async function loadAnim2d() {
  const bytes = await (await fetch(wasmUrl)).arrayBuffer();
  const { instance } = await WebAssembly.instantiate(bytes, {});
  const x = instance.exports;
  if (x._initialize) x._initialize();
  if (x.a2_joint_count() !== JOINT_COUNT || x.a2_pose_floats() !== JOINT_COUNT * 2 + FIELDS.length)
    throw new Error('anim2d.wasm does not match src/anim2d.js (pose layout changed)');

  // A plain-JS copy of the pose, refreshed after every build: drawing never touches wasm.
  const pose = { joints: Array.from({ length: JOINT_COUNT }, () => ({ x: 0, y: 0 })) };
  const read = (ptr) => {
    const f = new Float32Array(x.memory.buffer, ptr, JOINT_COUNT * 2 + FIELDS.length);
    for (let i = 0; i < JOINT_COUNT; i++) {
      pose.joints[i].x = f[2 * i];
      pose.joints[i].y = f[2 * i + 1];
    }
    FIELDS.forEach((name, i) => { pose[name] = f[JOINT_COUNT * 2 + i]; });
    return pose;
  };
  return {
    init: (anchorX, groundY) => x.a2_init(anchorX, groundY),
    setAnchor: (anchorX, groundY) => x.a2_set_anchor(anchorX, groundY),
    setMotion: (m) => x.a2_set_motion(m),
    setGait: (g, immediate = false) => x.a2_set_gait(g, immediate ? 1 : 0),
    trigger: (a) => x.a2_trigger(a) === 1,
    motion: () => x.a2_motion(),
    build: (dt) => read(x.a2_build_pose(dt)),
    pose: () => read(x.a2_pose()),
  };
}
