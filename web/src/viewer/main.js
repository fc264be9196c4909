// sinew viewer: open rigged .glb files, play their clips, compare
// original / rigid / chain at the same clip and frame, drive the tail live with sinew's
// spring runtime in WebAssembly, and read `sinew solve --heatmap` outputs.
//
// URL parameters (tests and links): ?src=URL (one file), ?compare=a.glb,b.glb,c.glb
// [&labels=a,b,c], &mode=view|compare|heat, &clip=NAME, &t=SECONDS, &paused=1, &live=1,
// &bones=1. window.sinewViewer is a small API the browser tests drive.
import * as THREE from 'three';
import './viewer.css';
import { Stage } from './stage.js';
import { loadModel } from './model.js';
import { BoneOverlay } from './bones.js';
import { DEFAULTS, Springs, findChains, loadRuntime } from './springs.js';
import { cssGradient, ramp, unramp, RED_AT } from './heat.js';

const $ = (id) => document.getElementById(id);
const ui = {
  stage: $('stage'), canvas: $('canvas'), labels: $('labels'), empty: $('empty'), drop: $('drop'),
  status: $('status'), legend: $('legend'), legendBar: $('legend-bar'), legendNote: $('legend-note'),
  readout: $('readout'), files: $('files'), fileInput: $('file-input'), info: $('model-info'),
  clipSearch: $('clip-search'), clipList: $('clip-list'), clipCount: $('clip-count'),
  bones: $('show-bones'), floor: $('show-floor'), frame: $('frame-button'),
  live: $('live-springs'), springsPanel: $('springs-panel'), springsHint: $('springs-hint'),
  floorContact: $('floor-contact'), defaults: $('springs-defaults'),
  play: $('play'), scrub: $('scrub'), time: $('time'), speed: $('speed'), clipName: $('clip-name'),
  transport: $('transport'),
};
const sliders = [...document.querySelectorAll('.slider input')];
const FORMAT = {
  frequency: (v) => `${v.toFixed(2)} Hz`, damping: (v) => `${v.toFixed(2)}`,
  gravity: (v) => `${v.toFixed(2)} m/s\u00b2`, carry: (v) => `${v.toFixed(0)}\u00b0`,
};
const HINT = ui.springsHint.textContent;

const stage = new Stage(ui.canvas, ui.labels);
ui.legendBar.style.background = cssGradient();

const app = {
  models: [], // every loaded file, in the order given
  labels: [],
  mode: 'view',
  clip: null, // clip name shared by every model on stage
  time: 0,
  playing: !window.matchMedia('(prefers-reduced-motion: reduce)').matches,
  speed: 1,
  live: false,
  showBones: false,
  floorContact: true,
  params: { ...DEFAULTS },
  frozen: false, // tests: the render loop draws but does not advance time or springs
  frames: 0,
  view: 'three-quarter', // camera preset (VIEWS)
  loading: null,
  runtime: null,
  error: null,
};

// ---------------------------------------------------------------- helpers
const baseName = (s) => decodeURIComponent(String(s).split(/[?#]/)[0].split('/').pop() || s);
const stem = (s) => baseName(s).replace(/\.(glb|gltf)$/i, '');
const visible = () => {
  if (!app.models.length) return [];
  if (app.mode === 'compare') return app.models;
  if (app.mode === 'heat') {
    const hm = app.models.filter((m) => m.hasColors);
    return hm.length ? hm : [app.models[0]];
  }
  return [app.models[0]];
};
const duration = () => {
  const m = visible().find((x) => x.clip);
  return m ? m.clip.duration : 0;
};

let statusTimer = 0;
function status(text, kind = 'info', ms = 4000) {
  clearTimeout(statusTimer);
  ui.status.textContent = text;
  ui.status.className = `status ${kind}`;
  ui.status.hidden = !text;
  if (text && ms) statusTimer = setTimeout(() => { ui.status.hidden = true; }, ms);
}

// ---------------------------------------------------------------- loading
// sources: [{ name, buffer?: ArrayBuffer, url?: string }]
async function load(sources, { mode, labels } = {}) {
  const job = (async () => {
    const parsed = [];
    for (const s of sources) {
      let buffer = s.buffer;
      let path = '';
      if (!buffer) {
        const res = await fetch(s.url);
        if (!res.ok) throw new Error(`${s.name}: cannot fetch ${s.url} (HTTP ${res.status})`);
        buffer = await res.arrayBuffer();
        path = new URL('.', new URL(s.url, location.href)).href;
      }
      parsed.push(await loadModel(buffer, s.name, path));
    }
    return parsed;
  })();
  app.loading = job;
  status(`Loading ${sources.map((s) => s.name).join(', ')}\u2026`, 'info', 0);
  let models;
  try {
    models = await job;
  } catch (e) {
    if (app.loading === job) app.loading = null;
    app.error = e.message || String(e);
    status(app.error, 'error', 0);
    return false;
  }
  if (app.loading !== job) { models.forEach((m) => m.dispose()); return false; }
  app.loading = null;
  app.error = null;
  status('');
  for (const m of app.models) { m.springs?.free(); m.overlay?.dispose(); m.dispose(); }
  app.models = models;
  app.labels = models.map((m, i) => (labels && labels[i]) || stem(m.name));
  for (const m of models) {
    m.overlay = new BoneOverlay(m);
    const seen = new Set(); // skinned primitives of one mesh share a skeleton: one chain each
    m.chains = m.skinned.flatMap((s) => findChains(s.skeleton.bones))
      .filter((c) => !seen.has(c.bones[0]) && seen.add(c.bones[0]));
    m.springs = null;
  }
  ui.empty.hidden = true;
  const heatFile = models.find((m) => m.heatNote) || null;
  app.mode = mode || (models.length > 1 ? 'compare' : heatFile ? 'heat' : 'view');
  const names = allClipNames(models);
  app.clip = pickClip(names, app.clip);
  app.time = 0;
  await setLive(app.live, { quiet: true });
  applyMode({ reframe: true });
  return true;
}

function allClipNames(models) {
  const names = [];
  for (const m of models) for (const c of m.clips) if (!names.includes(c.name)) names.push(c.name);
  return names;
}
function pickClip(names, wanted) {
  if (wanted && names.includes(wanted)) return wanted;
  return names.find((n) => /^walk$/i.test(n)) || names.find((n) => /walk|sprint|run|gallop/i.test(n)) || names[0] || null;
}

function readFiles(fileList) {
  const files = [...fileList].filter((f) => /\.(glb|gltf)$/i.test(f.name));
  if (!files.length) { status('Those are not .glb or .gltf files.', 'error'); return; }
  Promise.all(files.map((f) => f.arrayBuffer().then((buffer) => ({ name: f.name, buffer }))))
    .then((sources) => load(sources));
}

// ---------------------------------------------------------------- modes and layout
function applyMode({ reframe = false } = {}) {
  for (const b of document.querySelectorAll('.modes button')) b.setAttribute('aria-selected', String(b.dataset.mode === app.mode));
  const shown = visible();
  stage.content.clear();
  stage.overlay.clear();
  for (const m of app.models) {
    m.setHeat(app.mode === 'heat');
    if (m.overlay) m.overlay.object.visible = app.showBones;
  }
  for (const m of shown) {
    stage.content.add(m.root);
    stage.overlay.add(m.overlay.object);
    m.setClip(app.clip);
    if (m.springs) m.springs.reset();
  }
  layout(shown);
  if (app.mode === 'heat' && !app.models.some((m) => m.hasColors) && app.models.length) {
    status(`${app.models[0].name} has no COLOR_0: make a heat map with 'sinew solve --heatmap H.glb'.`, 'error', 6000);
  } else if (app.mode === 'compare' && app.models.length === 1) {
    status('Compare shows every loaded file side by side: open or drop two or three at once.', 'info', 6000);
  }
  ui.legend.hidden = !(app.mode === 'heat' && shown.some((m) => m.hasColors));
  const notes = [...new Set(shown.map((m) => m.heatNote).filter(Boolean))];
  ui.legendNote.textContent = notes.join(' \u00b7 ');
  refreshUI();
  pose(0);
  // Compare opens from behind, where the tails are (original / rigid / chain).
  if (reframe) frameAll(app.mode === 'compare' ? 'back' : 'three-quarter');
  updateLabels();
}

// Side by side across the first model's facing (left to right as the camera sees them), each
// model's body floor on y = 0.
const lateralOf = (m) => new THREE.Vector3(m.facing.z, 0, -m.facing.x);
function layout(shown) {
  if (!shown.length) return;
  const size = Math.max(...shown.map((m) => m.size));
  // Seen from behind, the row runs the other way so it still reads left to right.
  const lateral = lateralOf(shown[0]).multiplyScalar(app.view === 'back' ? -1 : 1);
  let width = 0;
  let depth = 0;
  for (const m of shown) {
    const e = m.restBox.getSize(new THREE.Vector3());
    width = Math.max(width, Math.abs(lateral.x) * e.x + Math.abs(lateral.z) * e.z);
    depth = Math.max(depth, Math.abs(lateral.z) * e.x + Math.abs(lateral.x) * e.z);
  }
  // Wide enough that a long body seen at the framing angle does not cover its neighbour.
  const spacing = Math.max(width * 1.5, width + 0.5 * depth);
  shown.forEach((m, i) => { m.slot.copy(lateral).multiplyScalar((i - (shown.length - 1) / 2) * spacing); m.place(); });
  const span = (spacing * shown.length) / 2;
  stage.setExtent(size, span, new THREE.Vector3(0, 0, 0));
}

// A three-quarter view from the front of the first model, everything on stage in frame (tail
// skin included: only the floor ignores it).
const VIEWS = { // camera direction as (facing, lateral, up) weights
  'three-quarter': [1, 0.62, 0.38], front: [1, 0, 0.12], side: [0.04, 1, 0.12], back: [-1, 0.55, 0.42],
};
function frameAll(view = app.view) {
  const shown = visible();
  if (!VIEWS[view]) view = 'three-quarter';
  const flip = (view === 'back') !== (app.view === 'back');
  app.view = view;
  if (flip && shown.length > 1) { layout(shown); updateLabels(); }
  for (const b of document.querySelectorAll('.views [data-view]')) b.setAttribute('aria-pressed', String(b.dataset.view === view));
  if (!shown.length) return;
  const box = new THREE.Box3();
  for (const m of shown) box.union(m.measure().box);
  box.expandByPoint(new THREE.Vector3(box.min.x, 0, box.min.z)); // the floor contact too
  const [wf, wl, wu] = VIEWS[view];
  // A row of figures is seen more from the front in the three-quarter view.
  const wlat = view === 'three-quarter' && shown.length > 1 ? 0.4 : wl;
  const dir = shown[0].facing.clone().multiplyScalar(wf).addScaledVector(lateralOf(shown[0]), wlat)
    .add(new THREE.Vector3(0, wu, 0));
  stage.frame(box, dir);
}

function updateLabels() {
  const shown = visible();
  if (shown.length < 2) { stage.setLabels([]); return; }
  stage.setLabels(shown.map((m) => {
    const i = app.models.indexOf(m);
    const top = m.restBox.max.y - m.floorY;
    return {
      text: app.labels[i],
      position: new THREE.Vector3(m.slot.x, top + m.size * 0.12, m.slot.z),
      className: m.chains.length ? 'chain' : '',
    };
  }));
}

// ---------------------------------------------------------------- per frame
// Puts every model on stage in the shared clip at app.time, then runs the springs.
function pose(simDt) {
  for (const m of visible()) {
    m.applyPose(m.clip, app.time);
    if (app.live && m.springs) m.springs.step(simDt, app.floorContact ? 0 : null);
    if (app.showBones) m.overlay.update();
  }
}

function tick(dt) {
  const d = duration();
  if (app.playing && d > 0) app.time = (app.time + dt * app.speed) % d;
  pose(dt * app.speed);
  app.frames++;
}

let last = performance.now();
let scrubbing = false;
stage.renderer.setAnimationLoop((now) => {
  const dt = Math.min(0.1, Math.max(0, (now - last) / 1000));
  last = now;
  if (app.frozen) return; // tests draw explicitly (advance), so frames stay cheap
  if (app.models.length) {
    tick(dt);
    syncTransport();
  }
  stage.controls.update();
  stage.render();
});

// ---------------------------------------------------------------- live springs
async function setLive(on, { quiet = false } = {}) {
  app.live = false;
  ui.live.checked = false;
  ui.springsHint.className = 'hint';
  ui.springsHint.textContent = HINT;
  if (!on) { refreshUI(); pose(0); return true; } // back to the clip's keys at once
  const candidates = app.models.filter((m) => m.chains.length);
  if (!candidates.length) {
    if (!quiet || app.models.length) {
      ui.springsHint.className = 'hint warn';
      ui.springsHint.textContent = app.models.length
        ? 'No Tail_1..Tail_K chain in the loaded file(s): give the tail bones with `sinew tail`.'
        : 'Open a file with a Tail_* chain first.';
    }
    refreshUI();
    return false;
  }
  try {
    app.runtime = app.runtime || (await loadRuntime());
    for (const m of candidates) {
      if (!m.springs) m.springs = new Springs(app.runtime, m, app.params);
      m.springs.reset();
    }
  } catch (e) {
    ui.springsHint.className = 'hint warn';
    ui.springsHint.textContent = `The spring runtime did not start: ${e.message || e}`;
    refreshUI();
    return false;
  }
  app.live = true;
  ui.live.checked = true;
  const links = candidates[0].springs.rigs.map((r) => r.bones.length).reduce((a, b) => a + b, 0);
  ui.springsHint.textContent = `${candidates.length} model(s), ${links} tail joint(s) simulated per frame in wasm.`;
  refreshUI();
  return true;
}

function setParams(p) {
  Object.assign(app.params, p);
  for (const s of sliders) {
    s.value = String(app.params[s.dataset.param]);
    $(`o-${s.dataset.param}`).textContent = FORMAT[s.dataset.param](app.params[s.dataset.param]);
  }
  for (const m of app.models) if (m.springs) m.springs.setParams(app.params);
}

// ---------------------------------------------------------------- UI
function refreshUI() {
  const shown = visible();
  ui.files.replaceChildren(...app.models.map((m, i) => {
    const c = document.createElement('span');
    c.className = 'chip';
    c.innerHTML = `<b></b> ${shown.includes(m) ? '' : '(hidden)'}`;
    c.querySelector('b').textContent = app.labels[i];
    c.title = m.name;
    return c;
  }));
  // Model facts
  const m = shown[0];
  const rows = [];
  if (m) {
    rows.push(['file', shown.map((x) => x.name).join(', ')]);
    rows.push(['mesh', `${m.vertexCount.toLocaleString('en')} vertices, ${m.jointCount} joints`]);
    rows.push(['size', `${m.size.toPrecision(3)} units`]);
    const chain = m.chains[0];
    if (shown.length > 1) {
      rows.push(['tails', shown.map((x) => {
        const c = x.chains[0];
        return `${app.labels[app.models.indexOf(x)]}: ${c ? `${c.bones[0].name} .. ${c.bones[c.bones.length - 1].name}` : 'no chain'}`;
      }).join(' \u00b7 '), shown.some((x) => x.chains.length) ? 'tail' : '']);
    } else rows.push(['tail', chain
      ? `${chain.bones[0].name} .. ${chain.bones[chain.bones.length - 1].name}${chain.end ? ` + ${chain.end.name}` : ''}${m.chains.length > 1 ? ` (+${m.chains.length - 1} chain)` : ''}`
      : 'no Tail_* chain', chain ? 'tail' : '']);
    rows.push(['floor', m.tailVertices
      ? `body's lowest point; ${m.tailVertices.toLocaleString('en')} tail-skin vertices ignored`
      : 'lowest point of the skin']);
    if (m.hasColors) rows.push(['colours', m.heatNote ? 'solve heat map (COLOR_0)' : 'COLOR_0']);
  } else rows.push(['file', 'none loaded']);
  ui.info.replaceChildren(...rows.flatMap(([k, v, cls]) => {
    const dt = document.createElement('dt'); dt.textContent = k;
    const dd = document.createElement('dd'); dd.textContent = v; if (cls) dd.className = cls;
    return [dt, dd];
  }));
  renderClipList();
  ui.springsPanel.classList.toggle('off', !app.live);
  ui.bones.checked = app.showBones;
  ui.play.classList.toggle('paused', !app.playing);
  ui.play.setAttribute('aria-label', app.playing ? 'Pause' : 'Play');
  ui.clipName.textContent = app.clip || 'rest pose';
  ui.transport.classList.toggle('disabled', !app.clip);
  syncTransport();
}

function renderClipList() {
  const shown = visible();
  const names = allClipNames(shown);
  const q = ui.clipSearch.value.trim().toLowerCase();
  const hits = names.filter((n) => n.toLowerCase().includes(q));
  ui.clipCount.textContent = names.length ? (q ? `${hits.length} / ${names.length}` : String(names.length)) : '';
  if (!hits.length) {
    const li = document.createElement('li');
    li.className = 'none';
    li.textContent = names.length ? 'no clip matches' : 'no clips in this file';
    ui.clipList.replaceChildren(li);
    return;
  }
  ui.clipList.replaceChildren(...hits.map((n) => {
    const li = document.createElement('li');
    li.setAttribute('role', 'option');
    li.dataset.clip = n;
    li.setAttribute('aria-selected', String(n === app.clip));
    const owners = shown.filter((m) => m.clipByName(n));
    if (owners.length < shown.length) {
      li.classList.add('partial');
      li.title = `only in ${owners.map((o) => app.labels[app.models.indexOf(o)]).join(', ')}; the others hold their rest pose`;
    }
    const d = owners[0].clipByName(n).duration;
    li.innerHTML = '<span class="n"></span><span class="d"></span>';
    li.firstChild.textContent = n;
    li.lastChild.textContent = `${d.toFixed(2)} s`;
    return li;
  }));
}

function selectClip(name) {
  app.clip = name;
  app.time = 0;
  for (const m of visible()) { m.setClip(name); if (m.springs) m.springs.reset(); }
  layout(visible());
  updateLabels();
  refreshUI();
  pose(0);
}

function syncTransport() {
  const d = duration();
  if (!scrubbing) {
    ui.scrub.max = String(d || 1);
    ui.scrub.value = String(app.time);
  }
  ui.time.textContent = `${app.time.toFixed(2)} / ${d.toFixed(2)} s`;
}

function setPlaying(on) {
  app.playing = on;
  refreshUI();
}

function setMode(mode) {
  if (!['view', 'compare', 'heat'].includes(mode)) return;
  app.mode = mode;
  if (app.models.length) applyMode({ reframe: true });
  else refreshUI();
}

// Heat map read-out: the error under the pointer, from the colour of the nearest vertex.
const raycaster = new THREE.Raycaster();
let hoverPending = null;
function hover(ev) {
  if (app.mode !== 'heat') { ui.readout.hidden = true; return; }
  hoverPending = ev;
  requestAnimationFrame(() => {
    const e = hoverPending;
    if (!e) return;
    hoverPending = null;
    const r = ui.canvas.getBoundingClientRect();
    const ndc = new THREE.Vector2(((e.clientX - r.left) / r.width) * 2 - 1, -((e.clientY - r.top) / r.height) * 2 + 1);
    raycaster.setFromCamera(ndc, stage.camera);
    const meshes = visible().flatMap((m) => m.meshes.filter((x) => x.geometry.attributes.color));
    const hit = raycaster.intersectObjects(meshes, false)[0];
    if (!hit || !hit.face) { ui.readout.hidden = true; return; }
    const col = hit.object.geometry.attributes.color;
    const pos = new THREE.Vector3();
    let best = hit.face.a;
    let bd = Infinity;
    for (const v of [hit.face.a, hit.face.b, hit.face.c]) {
      hit.object.getVertexPosition(v, pos).applyMatrix4(hit.object.matrixWorld);
      const dd = pos.distanceToSquared(hit.point);
      if (dd < bd) { bd = dd; best = v; }
    }
    const t = unramp(col.getX(best), col.getY(best), col.getZ(best));
    const [cr, cg, cb] = ramp(t ?? 0);
    const c = new THREE.Color().setRGB(cr, cg, cb, 'srgb-linear');
    ui.readout.innerHTML = '<i></i><span></span>';
    ui.readout.firstChild.style.background = `#${c.getHexString('srgb')}`;
    ui.readout.lastChild.textContent = t === null ? `vertex ${best}: colour not on the heat scale`
      : t >= 1 ? `vertex ${best}: \u2265 ${RED_AT}% of the diagonal`
        : `vertex ${best}: ${(t * RED_AT).toFixed(2)}% of the diagonal`;
    ui.readout.style.left = `${e.clientX - ui.stage.getBoundingClientRect().left}px`;
    ui.readout.style.top = `${e.clientY - ui.stage.getBoundingClientRect().top}px`;
    ui.readout.hidden = false;
  });
}

// ---------------------------------------------------------------- events
for (const b of document.querySelectorAll('.modes button')) b.addEventListener('click', () => setMode(b.dataset.mode));
ui.fileInput.addEventListener('change', () => { if (ui.fileInput.files.length) readFiles(ui.fileInput.files); ui.fileInput.value = ''; });
$('open-button').addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); ui.fileInput.click(); } });
ui.clipSearch.addEventListener('input', renderClipList);
ui.clipSearch.addEventListener('keydown', (e) => {
  if (e.key === 'Enter') { const first = ui.clipList.querySelector('li[data-clip]'); if (first) selectClip(first.dataset.clip); }
});
ui.clipList.addEventListener('click', (e) => {
  const li = e.target.closest('li[data-clip]');
  if (li) selectClip(li.dataset.clip);
});
ui.bones.addEventListener('change', () => setBones(ui.bones.checked));
ui.floor.addEventListener('change', () => { stage.floor.visible = ui.floor.checked; });
ui.frame.addEventListener('click', () => frameAll());
for (const b of document.querySelectorAll('.views [data-view]')) b.addEventListener('click', () => frameAll(b.dataset.view));
ui.live.addEventListener('change', () => setLive(ui.live.checked));
ui.floorContact.addEventListener('change', () => { app.floorContact = ui.floorContact.checked; });
ui.defaults.addEventListener('click', () => setParams({ ...DEFAULTS }));
for (const s of sliders) {
  s.addEventListener('input', () => {
    $(`o-${s.dataset.param}`).textContent = FORMAT[s.dataset.param](Number(s.value));
  });
  s.addEventListener('change', () => setParams({ [s.dataset.param]: Number(s.value) }));
}
ui.play.addEventListener('click', () => setPlaying(!app.playing));
ui.scrub.addEventListener('pointerdown', () => { scrubbing = true; });
window.addEventListener('pointerup', () => { scrubbing = false; });
ui.scrub.addEventListener('input', () => { app.time = Number(ui.scrub.value); pose(0); syncTransport(); });
ui.speed.addEventListener('change', () => { app.speed = Number(ui.speed.value); });
ui.canvas.addEventListener('pointermove', hover);
ui.canvas.addEventListener('pointerleave', () => { ui.readout.hidden = true; });

function setBones(on) {
  app.showBones = on;
  for (const m of app.models) if (m.overlay) { m.overlay.object.visible = on; m.overlay.update(); }
  refreshUI();
}

window.addEventListener('keydown', (e) => {
  if (e.target.closest && e.target.closest('input[type="search"], input[type="range"], select')) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const d = duration();
  if (e.code === 'Space') { e.preventDefault(); setPlaying(!app.playing); }
  else if (e.key === 'f' || e.key === 'F') frameAll();
  else if (e.key >= '1' && e.key <= '4') frameAll(Object.keys(VIEWS)[Number(e.key) - 1]);
  else if (e.key === 'b' || e.key === 'B') setBones(!app.showBones);
  else if (e.key === 'l' || e.key === 'L') setLive(!app.live);
  else if ((e.key === 'ArrowRight' || e.key === 'ArrowLeft') && d > 0) {
    e.preventDefault();
    setPlaying(false);
    app.time = (app.time + (e.key === 'ArrowRight' ? 1 : -1) / 30 + d) % d;
    pose(0);
  }
});

let dragDepth = 0;
window.addEventListener('dragenter', (e) => { e.preventDefault(); dragDepth++; ui.drop.hidden = false; });
window.addEventListener('dragover', (e) => { e.preventDefault(); });
window.addEventListener('dragleave', () => { if (--dragDepth <= 0) { dragDepth = 0; ui.drop.hidden = true; } });
window.addEventListener('drop', (e) => {
  e.preventDefault();
  dragDepth = 0;
  ui.drop.hidden = true;
  if (e.dataTransfer && e.dataTransfer.files.length) readFiles(e.dataTransfer.files);
});

// ---------------------------------------------------------------- test API
const quatAngle = (a, b) => 2 * Math.acos(Math.min(1, Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3])));
window.sinewViewer = {
  ready: false,
  get frames() { return app.frames; },
  load: (urls, opts = {}) => load(urls.map((u) => ({ name: baseName(u), url: u })), opts),
  state: () => ({
    mode: app.mode, clip: app.clip, time: app.time, playing: app.playing, live: app.live,
    bones: app.showBones, error: app.error, loading: !!app.loading, labels: app.labels,
    params: { ...app.params },
    models: app.models.map((m) => ({
      name: m.name, visible: visible().includes(m), clips: m.clips.map((c) => c.name),
      vertices: m.vertexCount, joints: m.jointCount, size: m.size, hasColors: m.hasColors,
      heatNote: m.heatNote, chains: m.chains.map((c) => c.bones.map((b) => b.name)),
      tailVertices: m.tailVertices, floorY: m.floorY, lowestAll: m.lowestAll, slot: m.slot.toArray(), facing: m.facing.toArray(),
      springs: !!m.springs, clip: m.clip ? m.clip.name : null, clipTime: m.time,
    })),
  }),
  setMode, setClip: selectClip, setBones, setLive, setParams,
  setFloorContact: (on) => { app.floorContact = on; ui.floorContact.checked = on; },
  setTime: (t) => { app.time = t; pose(0); syncTransport(); },
  play: () => setPlaying(true),
  pause: () => setPlaying(false),
  freeze: (on) => { app.frozen = on; },
  // Advances `steps` frames of dt seconds (clip time only while playing), then draws.
  advance: (dt, steps = 1) => { for (let i = 0; i < steps; i++) tick(dt); syncTransport(); stage.render(); },
  // Moves model i's placement (and so its hips) by (dx, dy, dz) in units of its size.
  nudge: (i, dx, dy, dz) => {
    const m = app.models[i];
    m.root.position.x += dx * m.size; m.root.position.y += dy * m.size; m.root.position.z += dz * m.size;
    m.root.updateMatrixWorld(true);
  },
  unplace: (i) => app.models[i].place(),
  tailRotations: (i = 0) => (app.models[i].springs ? app.models[i].springs.rotations()
    : (app.models[i].chains[0]?.bones || []).map((b) => b.quaternion.toArray())),
  hipsWorld: (i = 0) => {
    const c = app.models[i].chains[0];
    return c ? c.bones[0].parent.matrixWorld.toArray() : null;
  },
  // Current body floor and all-skin lowest point of model i, measured now (world y).
  measure: (i = 0) => { const r = app.models[i].measure(); return { bodyMin: r.bodyMin, allMin: r.allMin, tailMin: r.tailMin }; },
  quatAngle,
  pixels: (opts) => stage.readPixels(opts),
  frame: (view) => frameAll(view),
  camera: (x, y, z) => { stage.camera.position.set(x, y, z); stage.controls.update(); },
  duration,
  ramp, unramp,
};

// ---------------------------------------------------------------- start
setParams({ ...DEFAULTS });
refreshUI();
(async () => {
  const q = new URLSearchParams(location.search);
  if (q.get('bones') === '1') app.showBones = true;
  if (q.get('paused') === '1') app.playing = false;
  if (q.get('clip')) app.clip = q.get('clip');
  const labels = q.get('labels') ? q.get('labels').split(',') : undefined;
  const list = q.get('compare') ? q.get('compare').split(',').filter(Boolean) : q.get('src') ? [q.get('src')] : [];
  if (list.length) {
    const ok = await load(list.map((u) => ({ name: baseName(u), url: u })), { mode: q.get('mode') || undefined, labels });
    if (ok && q.get('t')) { app.time = Number(q.get('t')) || 0; pose(0); }
    if (ok && q.get('live') === '1') await setLive(true);
  } else if (q.get('mode')) setMode(q.get('mode'));
  window.sinewViewer.ready = true;
})();
