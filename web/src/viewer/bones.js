// "Show bones": every bone as a line to its parent and a dot at its joint, drawn over the
// mesh (no depth test). Tail bones are orange so the chain stands out, the rest pale blue.
// Positions come from the bones' world matrices each frame; buffers are allocated once.
import * as THREE from 'three';
import { TAIL_NAME } from './model.js';

const BODY = new THREE.Color(0x9cc7ff);
const TAIL = new THREE.Color(0xff9a3c);

export class BoneOverlay {
  constructor(model) {
    this.bones = model.bones;
    this.pairs = this.bones.filter((b) => b.parent && b.parent.isBone);
    const lp = new Float32Array(this.pairs.length * 6);
    const lc = new Float32Array(this.pairs.length * 6);
    this.pairs.forEach((b, i) => {
      const c = TAIL_NAME.test(b.name) ? TAIL : BODY;
      c.toArray(lc, i * 6); c.toArray(lc, i * 6 + 3);
    });
    const lg = new THREE.BufferGeometry();
    lg.setAttribute('position', new THREE.BufferAttribute(lp, 3));
    lg.setAttribute('color', new THREE.BufferAttribute(lc, 3));
    const mat = { vertexColors: true, depthTest: false, depthWrite: false, transparent: true, toneMapped: false };
    this.lines = new THREE.LineSegments(lg, new THREE.LineBasicMaterial({ ...mat, opacity: 0.95 }));
    const pp = new Float32Array(this.bones.length * 3);
    const pc = new Float32Array(this.bones.length * 3);
    this.bones.forEach((b, i) => (TAIL_NAME.test(b.name) ? TAIL : BODY).toArray(pc, i * 3));
    const pg = new THREE.BufferGeometry();
    pg.setAttribute('position', new THREE.BufferAttribute(pp, 3));
    pg.setAttribute('color', new THREE.BufferAttribute(pc, 3));
    this.points = new THREE.Points(pg, new THREE.PointsMaterial({ ...mat, size: 7, sizeAttenuation: false }));
    this.object = new THREE.Group();
    this.object.name = `bones:${model.name}`;
    this.object.add(this.lines, this.points);
    this.object.renderOrder = 10;
    this.lines.renderOrder = 10;
    this.points.renderOrder = 11;
    for (const o of [this.lines, this.points]) o.frustumCulled = false;
  }

  update() {
    if (!this.object.visible) return;
    const lp = this.lines.geometry.attributes.position;
    const a = new THREE.Vector3();
    this.pairs.forEach((b, i) => {
      a.setFromMatrixPosition(b.matrixWorld).toArray(lp.array, i * 6);
      a.setFromMatrixPosition(b.parent.matrixWorld).toArray(lp.array, i * 6 + 3);
    });
    lp.needsUpdate = true;
    const pp = this.points.geometry.attributes.position;
    this.bones.forEach((b, i) => a.setFromMatrixPosition(b.matrixWorld).toArray(pp.array, i * 3));
    pp.needsUpdate = true;
  }

  dispose() {
    this.object.removeFromParent();
    this.lines.geometry.dispose(); this.lines.material.dispose();
    this.points.geometry.dispose(); this.points.material.dispose();
  }
}
