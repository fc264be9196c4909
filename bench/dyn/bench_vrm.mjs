// ns per joint-step of three-vrm's spring bones (npm @pixiv/three-vrm, VRMSpringBoneManager)
// on the chains bench_dyn.c runs: CHAINS chains of 8 joints hanging from a moving hips, a
// floor plane collider, 60 updates per second, the same hips motion. CPU time of
// manager.update() only (the scene's world matrices are updated outside the timer, as the
// C bench receives its hips matrix ready-made). Usage: node bench_vrm.mjs [chains] [frames]
import * as THREE from 'three';
import {
  VRMSpringBoneManager, VRMSpringBoneJoint, VRMSpringBoneCollider,
  VRMSpringBoneColliderShapePlane,
} from '@pixiv/three-vrm';

const chains = Number(process.argv[2] || 10000);
const frames = Number(process.argv[3] || 30);
const K = 8;
const scene = new THREE.Object3D();
const floor = new VRMSpringBoneCollider(new VRMSpringBoneColliderShapePlane({
  offset: new THREE.Vector3(0, 0, 0), normal: new THREE.Vector3(0, 1, 0) }));
scene.add(floor);
const group = { colliders: [floor], name: 'floor' };
const manager = new VRMSpringBoneManager();
const dir = new THREE.Vector3(0, -1, -0.5).normalize();
const hips = [];
for (let c = 0; c < chains; c++) {
  const h = new THREE.Object3D();
  h.position.set((c % 100) * 3, 1, Math.floor(c / 100) * 3);
  scene.add(h);
  hips.push(h);
  const bones = [];
  let parent = h;
  for (let k = 0; k <= K; k++) { // K joints + the tip (Tail_End)
    const b = new THREE.Object3D();
    if (k === 0) b.position.set(0, -0.05, -0.12);
    else b.position.copy(dir).multiplyScalar(0.1);
    parent.add(b);
    bones.push(b);
    parent = b;
  }
  for (let k = 0; k < K; k++) {
    // stiffness/drag/gravity of a typical VRM tail; hit radius so the floor plane is active
    manager.addJoint(new VRMSpringBoneJoint(bones[k], bones[k + 1], {
      hitRadius: 0.025, stiffness: 1.0, gravityPower: 0.1,
      gravityDir: new THREE.Vector3(0, -1, 0), dragForce: 0.4,
    }, [group]));
  }
}
scene.updateMatrixWorld(true);
manager.setInitState();

const dt = 1 / 60;
const q = new THREE.Quaternion();
const up = new THREE.Vector3(0, 1, 0);
let cpu = 0;
const warm = 5;
for (let f = -warm; f < frames; f++) {
  const t = (f + warm) * dt;
  for (let c = 0; c < chains; c++) {
    const ph = c * 0.37;
    hips[c].position.set((c % 100) * 3 + 0.2 * Math.sin(5 * t + ph), 0.45 + 0.3 * Math.sin(2.1 * t + ph),
      Math.floor(c / 100) * 3 + 1.5 * t);
    hips[c].quaternion.copy(q.setFromAxisAngle(up, 0.6 * Math.sin(3.3 * t + ph)));
  }
  scene.updateMatrixWorld(true);
  const u0 = process.cpuUsage();
  manager.update(dt);
  const u = process.cpuUsage(u0);
  if (f >= 0) cpu += (u.user + u.system) * 1e-6;
}
const steps = chains * K * frames;
console.log(`three-vrm ${'springbone'}: ${chains} chains x ${K} joints x ${frames} frames at 60 fps: ` +
  `${(1e9 * cpu / steps).toFixed(1)} ns per joint-step; ${(1e3 * cpu / frames).toFixed(2)} ms per frame`);
console.log(`RESULT vrm_ns_per_joint_step ${(1e9 * cpu / steps).toFixed(3)}`);
