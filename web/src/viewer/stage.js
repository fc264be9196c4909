// The 3D stage: renderer, camera + OrbitControls, lights, the floor at world y = 0, compare
// labels and a pixel read-back for tests. Models are placed by main.js so that their body
// floor (tail skin ignored, see model.js) lands on y = 0; the stage only draws.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { CSS2DRenderer, CSS2DObject } from 'three/addons/renderers/CSS2DRenderer.js';

// A soft radial fade so the floor disc has no hard rim.
function fadeTexture() {
  const c = document.createElement('canvas');
  c.width = c.height = 256;
  const g = c.getContext('2d');
  const grad = g.createRadialGradient(128, 128, 0, 128, 128, 128);
  grad.addColorStop(0, '#fff');
  grad.addColorStop(0.55, '#fff');
  grad.addColorStop(1, '#000');
  g.fillStyle = grad;
  g.fillRect(0, 0, 256, 256);
  const t = new THREE.CanvasTexture(c);
  t.colorSpace = THREE.NoColorSpace;
  return t;
}

function niceStep(x) {
  const p = Math.pow(10, Math.floor(Math.log10(x)));
  const m = x / p;
  return p * (m >= 5 ? 5 : m >= 2 ? 2 : 1);
}

export class Stage {
  constructor(canvas, labelLayer) {
    this.canvas = canvas;
    this.renderer = new THREE.WebGLRenderer({ canvas, antialias: true, alpha: true });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    this.renderer.outputColorSpace = THREE.SRGBColorSpace;
    this.renderer.toneMapping = THREE.NeutralToneMapping;
    this.renderer.toneMappingExposure = 1.0;
    this.renderer.shadowMap.enabled = true;
    this.renderer.shadowMap.type = THREE.PCFShadowMap;
    this.renderer.setClearColor(0x000000, 0);

    this.scene = new THREE.Scene();

    this.camera = new THREE.PerspectiveCamera(38, 1, 0.01, 1000);
    this.camera.position.set(2, 1.5, 3);
    this.controls = new OrbitControls(this.camera, canvas);
    this.controls.enableDamping = true;
    this.controls.dampingFactor = 0.12;
    this.controls.screenSpacePanning = true;

    this.hemi = new THREE.HemisphereLight(0xdfe8ff, 0x3a3128, 0.9);
    this.scene.add(this.hemi);
    this.key = new THREE.DirectionalLight(0xfff3e6, 2.2);
    this.key.castShadow = true;
    this.key.shadow.mapSize.set(2048, 2048);
    this.key.shadow.bias = -0.0005;
    this.key.shadow.normalBias = 0.02;
    this.scene.add(this.key, this.key.target);
    this.rim = new THREE.DirectionalLight(0x9fc4ff, 1.1);
    this.scene.add(this.rim);

    // Floor: a shaded disc that catches shadows, and a grid; both at world y = 0.
    this.floor = new THREE.Group();
    this.floor.name = 'floor';
    const disc = new THREE.Mesh(
      new THREE.CircleGeometry(1, 96),
      new THREE.MeshStandardMaterial({
        color: 0x2b3140, roughness: 0.95, metalness: 0, transparent: true,
        alphaMap: fadeTexture(), depthWrite: false,
      }),
    );
    disc.rotation.x = -Math.PI / 2;
    disc.receiveShadow = true;
    disc.renderOrder = -2;
    this.grid = new THREE.GridHelper(2, 24, 0x6f7f9c, 0x47536a);
    this.grid.material.transparent = true;
    this.grid.material.opacity = 0.35;
    this.grid.material.depthWrite = false;
    this.grid.position.y = 0.0005;
    this.grid.renderOrder = -1;
    this.floor.add(disc, this.grid);
    this.scene.add(this.floor);

    this.content = new THREE.Group();
    this.content.name = 'models';
    this.scene.add(this.content);
    this.overlay = new THREE.Group(); // bones: drawn on top, not part of "model pixels"
    this.overlay.name = 'overlay';
    this.scene.add(this.overlay);

    this.labels = new CSS2DRenderer({ element: labelLayer });
    this.labelObjects = [];
    this.size = 1;
    this.resize();
    new ResizeObserver(() => this.resize()).observe(canvas.parentElement);
  }

  resize() {
    const el = this.canvas.parentElement;
    const w = Math.max(1, el.clientWidth);
    const h = Math.max(1, el.clientHeight);
    this.renderer.setSize(w, h, false);
    this.labels.setSize(w, h);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
  }

  // Scales floor, grid, lights and shadow camera to a scene of `size` world units around
  // `center` (x, z) and `span` (the half-width of everything on stage).
  setExtent(size, span, center) {
    this.size = size;
    const r = Math.max(span * 1.8, size * 2.2);
    const disc = this.floor.children[0];
    disc.scale.setScalar(r);
    const cell = niceStep(size / 5); // a grid cell of 1, 2 or 5 x 10^k units
    const divisions = Math.max(4, Math.min(80, Math.round((2 * r) / cell)));
    this.grid.scale.setScalar((divisions * cell) / 2);
    this.grid.geometry.dispose();
    this.grid.geometry = new THREE.GridHelper(2, divisions, 0x6f7f9c, 0x47536a).geometry;
    this.floor.position.set(center.x, 0, center.z);

    this.key.position.set(center.x + size * 1.6, size * 3.2, center.z + size * 2.4);
    this.key.target.position.set(center.x, 0, center.z);
    const sc = this.key.shadow.camera;
    const half = Math.max(span, size) * 1.3;
    sc.left = -half; sc.right = half; sc.top = half; sc.bottom = -half;
    sc.near = size * 0.1; sc.far = size * 8;
    sc.updateProjectionMatrix();
    this.rim.position.set(center.x - size * 2, size * 1.5, center.z - size * 2.5);
    this.camera.near = size / 500;
    this.camera.far = size * 200;
    this.camera.updateProjectionMatrix();
    this.controls.minDistance = size * 0.05;
    this.controls.maxDistance = size * 40;
  }

  // Frames a world box: a three-quarter view from the front (+Z, where glTF characters face).
  // The distance is the smallest that keeps all 8 corners inside both fields of view.
  frame(box, dir = new THREE.Vector3(0.62, 0.38, 1)) {
    const center = box.getCenter(new THREE.Vector3());
    const d = dir.clone().normalize();
    const right = new THREE.Vector3().crossVectors(new THREE.Vector3(0, 1, 0), d).normalize();
    const up = new THREE.Vector3().crossVectors(d, right);
    const tanV = Math.tan(THREE.MathUtils.degToRad(this.camera.fov) / 2);
    const tanH = tanV * this.camera.aspect;
    let dist = 0;
    const p = new THREE.Vector3();
    for (let i = 0; i < 8; i++) {
      p.set(i & 1 ? box.max.x : box.min.x, i & 2 ? box.max.y : box.min.y, i & 4 ? box.max.z : box.min.z).sub(center);
      const z = p.dot(d);
      dist = Math.max(dist, z + Math.abs(p.dot(right)) / (tanH * 0.92), z + Math.abs(p.dot(up)) / (tanV * 0.82));
    }
    this.controls.target.copy(center);
    this.camera.position.copy(center).addScaledVector(d, dist);
    this.camera.updateProjectionMatrix();
    this.controls.update();
  }

  setLabels(items) { // items: [{ text, position: Vector3 }]
    for (const o of this.labelObjects) o.removeFromParent();
    this.labelObjects = items.map(({ text, position, className }) => {
      const el = document.createElement('div');
      el.className = `stage-label ${className || ''}`;
      el.textContent = text;
      const obj = new CSS2DObject(el);
      obj.position.copy(position);
      this.scene.add(obj);
      return obj;
    });
  }

  render() {
    this.renderer.render(this.scene, this.camera);
    this.labels.render(this.scene, this.camera);
  }

  // Renders once and reads the drawing buffer back in the same task (no
  // preserveDrawingBuffer needed). modelsOnly hides floor and overlay, so `covered` counts
  // pixels of the models alone. Returns coverage, distinct colours and a cols x rows
  // thumbnail (mean RGBA per cell, 0..255) and the count of pixels changed since the last read.
  readPixels({ modelsOnly = false, cols = 64, rows = 40 } = {}) {
    const hidden = modelsOnly ? [this.floor, this.overlay, ...this.labelObjects] : [];
    const was = hidden.map((o) => o.visible);
    hidden.forEach((o) => { o.visible = false; });
    this.renderer.render(this.scene, this.camera);
    const gl = this.renderer.getContext();
    const w = gl.drawingBufferWidth;
    const h = gl.drawingBufferHeight;
    const px = new Uint8Array(w * h * 4);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    hidden.forEach((o, i) => { o.visible = was[i]; });
    this.render();
    // Pixels that differ (any channel by more than 24) from the previous read of this size:
    // what a toggle changed, even when it is thin lines.
    let changed = -1;
    const prev = this.lastPixels;
    if (prev && prev.length === px.length) {
      changed = 0;
      for (let i = 0; i < px.length; i += 4) {
        if (Math.abs(px[i] - prev[i]) > 24 || Math.abs(px[i + 1] - prev[i + 1]) > 24
          || Math.abs(px[i + 2] - prev[i + 2]) > 24 || Math.abs(px[i + 3] - prev[i + 3]) > 24) changed++;
      }
    }
    this.lastPixels = px;
    let covered = 0;
    let opaque = 0;
    let onRamp = 0; // opaque pixels with one channel full and one empty: heat colours, unlit
    const colours = new Set();
    const thumb = new Float64Array(cols * rows * 4);
    const count = new Float64Array(cols * rows);
    for (let y = 0; y < h; y++) {
      const ty = Math.min(rows - 1, Math.floor(((h - 1 - y) * rows) / h));
      for (let x = 0; x < w; x++) {
        const i = (y * w + x) * 4;
        const a = px[i + 3];
        if (a > 0) {
          covered++;
          if (a === 255) {
            opaque++;
            const hi = Math.max(px[i], px[i + 1], px[i + 2]);
            const lo = Math.min(px[i], px[i + 1], px[i + 2]);
            if (hi >= 250 && lo <= 5) onRamp++;
          }
          if ((x + y) % 3 === 0) colours.add((px[i] >> 3) << 10 | (px[i + 1] >> 3) << 5 | px[i + 2] >> 3);
        }
        const c = ty * cols + Math.min(cols - 1, Math.floor((x * cols) / w));
        thumb[c * 4] += px[i]; thumb[c * 4 + 1] += px[i + 1]; thumb[c * 4 + 2] += px[i + 2]; thumb[c * 4 + 3] += a;
        count[c]++;
      }
    }
    const cells = Array.from(thumb, (v, i) => Math.round(v / Math.max(1, count[i >> 2])));
    // Horizontal distribution of covered pixels (per thumbnail column), to count figures.
    const columns = Array.from({ length: cols }, (_, c) => {
      let s = 0;
      for (let r = 0; r < rows; r++) s += cells[(r * cols + c) * 4 + 3];
      return s / rows;
    });
    return { width: w, height: h, covered, fraction: covered / (w * h), changed, opaque, onRamp, colours: colours.size, cols, rows, thumb: cells, columns };
  }
}
