// The stickman page: Spear Run (default) and the motion lab (after Sidorkin, "Animating a
// stick figure with two-bone IK in HTML canvas"). The pose comes from sinew's anim2d module
// (WebAssembly) every frame; this file only keeps the game and draws.
import { loadAnim2d, Motion, Action, J } from './anim2d.js';

const DRAW_H = 440; // the drawing space is always about 440 units tall, as in the article
const GROUND = 372; // ground line, units from the top
const MAX_DT = 0.033; // the library clamps dt to 33 ms; the world moves with the same dt
const INK = '#22252e';
const INK_FAR = '#0c0d12';
const PAPER = '#f5efe3';
const ACCENT = '#d9482b';
const WOOD = '#7a5532';
const STEEL = '#8f97a3';

const $ = (id) => document.getElementById(id);
const canvas = $('canvas');
const ctx = canvas.getContext('2d');
const stage = $('stage');

const state = {
  mode: 'game', // 'game' | 'lab'
  labMotion: 'walk',
  skeleton: false,
  userPaused: false,
  hidden: document.hidden,
  offscreen: false,
  frames: 0,
  scale: 1,
  viewW: 800,
  anchorX: 0,
  anchorTarget: 0,
  worldX: 0, // units of ground scrolled in this game
  clock: 0, // seconds the page has animated
  game: null,
  best: 0,
  errors: [],
  ready: false, // the wasm module is loaded and the first frame drawn
};

let anim = null;
let pose = null;
let rafId = 0;
const work = new Float32Array(600); // the last 600 frames' work in ms (bench/anim2d/frames.mjs)
let workAt = 0;
let lastT = 0;

// ---- deterministic randomness for obstacle spacing ----
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function newGame() {
  state.game = {
    status: 'running', // 'running' | 'over'
    started: false, // obstacles come after the first jump or thrust
    score: 0,
    objects: [],
    nextSpawn: 0,
    rand: rng(20260),
    flash: 0,
  };
  state.worldX = 0;
  updateHud();
}

// ---- layout ----
function resize() {
  const dpr = Math.min(window.devicePixelRatio || 1, 2.5);
  const w = Math.max(1, Math.round(stage.clientWidth * dpr));
  const h = Math.max(1, Math.round(stage.clientHeight * dpr));
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
  }
  state.scale = h / DRAW_H;
  state.viewW = w / state.scale;
  state.anchorTarget = anchorFor(state.mode);
  if (!state.anchorX) state.anchorX = state.anchorTarget;
  if (anim) anim.setAnchor(state.anchorX, GROUND);
}
const anchorFor = (mode) => (mode === 'game' ? Math.min(state.viewW * 0.26, 260) : state.viewW * 0.5);

// ---- drawing helpers ----
const reflect = (a, b) => ({ x: 2 * a.x - b.x, y: 2 * a.y - b.y });
function catmull(p0, p1, p2, p3, t) {
  const t2 = t * t;
  const t3 = t2 * t;
  const f = (a, b, c, d) =>
    0.5 * (2 * b + (-a + c) * t + (2 * a - 5 * b + 4 * c - d) * t2 + (-a + 3 * b - 3 * c + d) * t3);
  return { x: f(p0.x, p1.x, p2.x, p3.x), y: f(p0.y, p1.y, p2.y, p3.y) };
}
// A smooth curve through the points (Catmull-Rom with mirrored end tangents).
function spline(points, steps = 8) {
  const P = [reflect(points[0], points[1]), ...points, reflect(points.at(-1), points.at(-2))];
  const out = [points[0]];
  for (let s = 1; s < P.length - 2; s++)
    for (let i = 1; i <= steps; i++) out.push(catmull(P[s - 1], P[s], P[s + 1], P[s + 2], i / steps));
  return out;
}
// A tapered ribbon along a spline, round caps, width w0 at the root and w1 at the end:
// one closed outline, so a translucent limb paints every pixel once.
function ribbon(points, w0, w1) {
  const c = spline(points);
  const n = c.length;
  const len = [0];
  for (let i = 1; i < n; i++) len.push(len[i - 1] + Math.hypot(c[i].x - c[i - 1].x, c[i].y - c[i - 1].y));
  const total = len[n - 1] || 1;
  const left = [];
  const right = [];
  const normals = [];
  for (let i = 0; i < n; i++) {
    const a = c[Math.max(0, i - 1)];
    const b = c[Math.min(n - 1, i + 1)];
    let tx = b.x - a.x;
    let ty = b.y - a.y;
    const l = Math.hypot(tx, ty) || 1;
    tx /= l;
    ty /= l;
    const nx = -ty;
    const ny = tx;
    const hw = (w0 + (w1 - w0) * (len[i] / total)) / 2;
    normals.push(Math.atan2(ny, nx));
    left.push({ x: c[i].x + nx * hw, y: c[i].y + ny * hw });
    right.push({ x: c[i].x - nx * hw, y: c[i].y - ny * hw });
  }
  ctx.beginPath();
  ctx.moveTo(left[0].x, left[0].y);
  for (let i = 1; i < n; i++) ctx.lineTo(left[i].x, left[i].y);
  ctx.arc(c[n - 1].x, c[n - 1].y, w1 / 2, normals[n - 1], normals[n - 1] - Math.PI, true);
  for (let i = n - 1; i >= 0; i--) ctx.lineTo(right[i].x, right[i].y);
  ctx.arc(c[0].x, c[0].y, w0 / 2, normals[0] + Math.PI, normals[0], true);
  ctx.closePath();
  ctx.fill();
}

function drawBackground(groundOffset) {
  const W = state.viewW;
  const sky = ctx.createLinearGradient(0, 0, 0, GROUND);
  sky.addColorStop(0, '#f8f3ea');
  sky.addColorStop(1, '#efe5d2');
  ctx.fillStyle = sky;
  ctx.fillRect(0, 0, W, GROUND);
  // Sun and two hill bands, drifting slower than the ground (parallax).
  ctx.fillStyle = 'rgba(240, 176, 96, 0.35)';
  ctx.beginPath();
  ctx.arc(W * 0.78, 92, 38, 0, Math.PI * 2);
  ctx.fill();
  // Clouds drift with the run, slowest of all (and a little on their own).
  const span = W + 240;
  for (const [cx, cy, size] of [[0.1, 70, 1], [0.42, 120, 0.7], [0.66, 52, 0.85], [0.9, 140, 0.6]]) {
    const x = ((((cx * span - state.worldX * 0.04 * size - state.clock * 3) % span) + span) % span) - 120;
    cloud(x, cy, size);
  }
  hills(state.worldX * 0.12, 300, 36, 'rgba(198, 184, 156, 0.55)', 420);
  hills(state.worldX * 0.3, 336, 26, 'rgba(184, 168, 136, 0.6)', 260);
  const ground = ctx.createLinearGradient(0, GROUND, 0, DRAW_H);
  ground.addColorStop(0, '#e0d3b8');
  ground.addColorStop(1, '#d4c4a4');
  ctx.fillStyle = ground;
  ctx.fillRect(0, GROUND, W, DRAW_H - GROUND);
  ctx.fillStyle = 'rgba(120, 100, 70, 0.35)';
  ctx.fillRect(0, GROUND, W, 1.2);
  // Soft dots that scroll with the figure's stride and stop when it stops, as in the article.
  const spacing = 32; // divides the 1024-unit wrap of ground_offset: no seam
  for (let row = 0; row < 3; row++) {
    const y = GROUND + 12 + row * 18;
    const sp = spacing * (1 + row * 0.5);
    const o = (groundOffset * (1 + row * 0.5)) % sp;
    ctx.fillStyle = `rgba(140, 118, 84, ${0.32 - row * 0.07})`;
    for (let x = -o + (row % 2) * sp * 0.5; x < W + sp; x += sp) {
      ctx.beginPath();
      ctx.arc(x, y, 2.2 + row * 0.6, 0, Math.PI * 2);
      ctx.fill();
    }
  }
}
function cloud(x, y, k) {
  ctx.fillStyle = 'rgba(255, 255, 255, 0.7)';
  ctx.beginPath();
  for (const [dx, dy, r] of [[0, 0, 18], [20, -8, 22], [44, 0, 17], [22, 6, 16]])
    ctx.ellipse(x + dx * k * 1.4, y + dy * k, r * k * 1.5, r * k, 0, 0, Math.PI * 2);
  ctx.fill();
}
function hills(offset, base, amp, color, period) {
  const W = state.viewW;
  ctx.fillStyle = color;
  ctx.beginPath();
  ctx.moveTo(0, GROUND);
  for (let x = 0; x <= W + 20; x += 20) {
    const u = (x + offset) / period;
    const y = base - amp * (0.6 * Math.sin(u * 2 * Math.PI) + 0.4 * Math.sin(u * 4.7 * Math.PI + 1.3));
    ctx.lineTo(x, y);
  }
  ctx.lineTo(W, GROUND);
  ctx.closePath();
  ctx.fill();
}

function drawFigure(p) {
  const j = p.joints;
  const k = (p.sx + p.sy) / 2;
  // Shadow on the ground, smaller as the feet lift.
  const lift = Math.min(1, p.lift / 160);
  ctx.fillStyle = `rgba(60, 45, 25, ${0.18 * (1 - 0.6 * lift)})`;
  ctx.beginPath();
  ctx.ellipse(j[J.PELVIS].x, GROUND + 2, 30 * (1 - 0.4 * lift), 5 * (1 - 0.4 * lift), 0, 0, Math.PI * 2);
  ctx.fill();

  // Far side first: thinner, darker, 42% opacity, as in the article.
  ctx.globalAlpha = 0.42;
  ctx.fillStyle = INK_FAR;
  ribbon([j[J.PELVIS], j[J.KNEE_FAR], j[J.FOOT_FAR]], 8.5 * k, 4.5 * k);
  ribbon([j[J.SHOULDER], j[J.ELBOW_FAR], j[J.HAND_FAR]], 6 * k, 3.6 * k);
  ctx.globalAlpha = 1;

  // Scarf tails (Verlet), behind the head.
  ctx.fillStyle = ACCENT;
  ribbon([j[J.HAIR_0], j[J.HAIR_1], j[J.HAIR_2], j[J.HAIR_3]], 6, 2.2);

  // Torso and neck.
  ctx.fillStyle = INK;
  ribbon([j[J.PELVIS], lerpP(j[J.PELVIS], j[J.CHEST], 0.5), j[J.CHEST]], 11 * k, 9.5 * k);
  ribbon([j[J.CHEST], j[J.NECK]], 6 * k, 5 * k);

  // Head, headband and an eye looking forward.
  const h = j[J.HEAD];
  const r = p.headRadius;
  ctx.beginPath();
  ctx.arc(h.x, h.y, r, 0, Math.PI * 2);
  ctx.fill();
  const ux = j[J.NECK].x - j[J.CHEST].x;
  const uy = j[J.NECK].y - j[J.CHEST].y;
  const ul = Math.hypot(ux, uy) || 1;
  const up = { x: ux / ul, y: uy / ul };
  const fwd = { x: -up.y, y: up.x };
  ctx.strokeStyle = ACCENT;
  ctx.lineWidth = 3.2;
  ctx.beginPath();
  ctx.moveTo(h.x - fwd.x * r * 0.98 + up.x * r * 0.3, h.y - fwd.y * r * 0.98 + up.y * r * 0.3);
  ctx.lineTo(h.x + fwd.x * r * 0.98 + up.x * r * 0.3, h.y + fwd.y * r * 0.98 + up.y * r * 0.3);
  ctx.stroke();
  ctx.fillStyle = PAPER;
  ctx.beginPath();
  ctx.arc(h.x + fwd.x * r * 0.5 + up.x * r * 0.05, h.y + fwd.y * r * 0.5 + up.y * r * 0.05, 1.6, 0, Math.PI * 2);
  ctx.fill();

  // Near leg, the spear, then the near arm over it.
  ctx.fillStyle = INK;
  ribbon([j[J.PELVIS], j[J.KNEE_NEAR], j[J.FOOT_NEAR]], 10 * k, 5.2 * k);
  if (p.spearAlpha > 0.01) drawSpear(p);
  ctx.fillStyle = INK;
  ribbon([j[J.SHOULDER], j[J.ELBOW_NEAR], j[J.HAND_NEAR]], 7.2 * k, 4.2 * k);
}
const lerpP = (a, b, t) => ({ x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t });

function drawSpear(p) {
  const b = p.joints[J.SPEAR_BUTT];
  const t = p.joints[J.SPEAR_TIP];
  const dx = t.x - b.x;
  const dy = t.y - b.y;
  const l = Math.hypot(dx, dy) || 1;
  const d = { x: dx / l, y: dy / l };
  const n = { x: -d.y, y: d.x };
  ctx.globalAlpha = p.spearAlpha;
  ctx.strokeStyle = WOOD;
  ctx.lineCap = 'round';
  ctx.lineWidth = 3.2;
  ctx.beginPath();
  ctx.moveTo(b.x, b.y);
  ctx.lineTo(t.x - d.x * 4, t.y - d.y * 4);
  ctx.stroke();
  ctx.fillStyle = STEEL;
  ctx.beginPath();
  ctx.moveTo(t.x + d.x * 12, t.y + d.y * 12);
  ctx.lineTo(t.x - d.x * 4 + n.x * 4.5, t.y - d.y * 4 + n.y * 4.5);
  ctx.lineTo(t.x - d.x * 1, t.y - d.y * 1);
  ctx.lineTo(t.x - d.x * 4 - n.x * 4.5, t.y - d.y * 4 - n.y * 4.5);
  ctx.closePath();
  ctx.fill();
  // A thrust leaves a short speed streak behind the head.
  if (p.thrust > 0.3) {
    ctx.strokeStyle = `rgba(143, 151, 163, ${0.5 * p.thrust})`;
    ctx.lineWidth = 1.5;
    for (const o of [-5, 5]) {
      ctx.beginPath();
      ctx.moveTo(t.x - d.x * 40 + n.x * o, t.y - d.y * 40 + n.y * o);
      ctx.lineTo(t.x - d.x * 14 + n.x * o, t.y - d.y * 14 + n.y * o);
      ctx.stroke();
    }
  }
  ctx.globalAlpha = 1;
}

function drawSkeleton(p) {
  const j = p.joints;
  const bones = [
    [J.PELVIS, J.CHEST], [J.CHEST, J.NECK], [J.NECK, J.HEAD], [J.PELVIS, J.KNEE_NEAR],
    [J.KNEE_NEAR, J.FOOT_NEAR], [J.PELVIS, J.KNEE_FAR], [J.KNEE_FAR, J.FOOT_FAR],
    [J.SHOULDER, J.ELBOW_NEAR], [J.ELBOW_NEAR, J.HAND_NEAR], [J.SHOULDER, J.ELBOW_FAR],
    [J.ELBOW_FAR, J.HAND_FAR], [J.HAIR_0, J.HAIR_1], [J.HAIR_1, J.HAIR_2], [J.HAIR_2, J.HAIR_3],
  ];
  ctx.strokeStyle = 'rgba(47, 111, 143, 0.9)';
  ctx.lineWidth = 1.4;
  ctx.beginPath();
  for (const [a, b] of bones) {
    ctx.moveTo(j[a].x, j[a].y);
    ctx.lineTo(j[b].x, j[b].y);
  }
  ctx.stroke();
  // IK targets: the hip-foot lines the law of cosines solves over.
  ctx.setLineDash([3, 3]);
  ctx.strokeStyle = 'rgba(217, 72, 43, 0.7)';
  ctx.beginPath();
  for (const f of [J.FOOT_NEAR, J.FOOT_FAR]) {
    ctx.moveTo(j[J.PELVIS].x, j[J.PELVIS].y);
    ctx.lineTo(j[f].x, j[f].y);
  }
  ctx.stroke();
  ctx.setLineDash([]);
  for (let i = 0; i < j.length; i++) {
    if (i === J.SPEAR_TIP || i === J.SPEAR_BUTT) continue;
    ctx.fillStyle = i >= J.HAIR_0 ? ACCENT : '#2f6f8f';
    ctx.beginPath();
    ctx.arc(j[i].x, j[i].y, 2.6, 0, Math.PI * 2);
    ctx.fill();
  }
}

// ---- the game ----
const BEST_KEY = 'sinew-spear-run-best';
const HURDLE_H = 34;
const DUMMY_H = 150;
function stepGame(dt, p) {
  const g = state.game;
  if (g.status !== 'running') return;
  const ax = state.anchorX;
  while (g.started && g.nextSpawn < state.worldX + state.viewW - ax + 80) {
    const kind = g.rand() < 0.58 ? 'hurdle' : 'dummy';
    g.objects.push({ kind, x: g.nextSpawn, done: false, fall: 0 });
    g.nextSpawn += 420 + g.rand() * 460;
  }
  const feetY = Math.max(p.joints[J.FOOT_NEAR].y, p.joints[J.FOOT_FAR].y);
  const tip = p.joints[J.SPEAR_TIP];
  for (const o of g.objects) {
    const sx = ax + (o.x - state.worldX);
    if (o.kind === 'hurdle') {
      if (!o.done && sx < ax - 24) {
        o.done = true;
        g.score += 1;
      }
      if (!o.done && Math.abs(sx - ax) < 16 && feetY > GROUND - HURDLE_H) return crash();
    } else {
      if (o.done) {
        o.fall = Math.min(1, o.fall + dt * 3.5);
        continue;
      }
      if (p.thrust > 0.45 && Math.abs(tip.x - sx) < 26 && tip.y > GROUND - DUMMY_H && tip.y < GROUND - 30) {
        o.done = true;
        g.score += 3;
        g.flash = 1;
      } else if (sx - 18 < ax + 14) {
        return crash();
      }
    }
  }
  g.objects = g.objects.filter((o) => ax + (o.x - state.worldX) > -120);
  g.flash = Math.max(0, g.flash - dt * 4);
  updateHud();
}
function crash() {
  const g = state.game;
  g.status = 'over';
  state.best = Math.max(state.best, g.score);
  try {
    localStorage.setItem(BEST_KEY, String(state.best));
  } catch {
    // storage may be off (private mode): the best score just lasts the visit
  }
  updateHud();
  const touch = window.matchMedia('(pointer: coarse)').matches;
  const again = touch ? 'Tap Jump to run again.' : 'Space or Enter to run again.';
  showOverlay('Ouch!', `Score ${g.score}. ${again}`, 'Run again', restart);
}
function restart() {
  hideOverlay();
  anim.init(state.anchorX, GROUND);
  newGame();
}
function drawObjects() {
  const g = state.game;
  const ax = state.anchorX;
  for (const o of g.objects) {
    const x = ax + (o.x - state.worldX);
    if (x < -60 || x > state.viewW + 60) continue;
    if (o.kind === 'hurdle') {
      ctx.fillStyle = WOOD;
      ctx.fillRect(x - 9, GROUND - HURDLE_H, 3.5, HURDLE_H);
      ctx.fillRect(x + 6, GROUND - HURDLE_H, 3.5, HURDLE_H);
      ctx.fillStyle = ACCENT;
      ctx.fillRect(x - 12, GROUND - HURDLE_H, 24, 6);
      ctx.fillStyle = PAPER;
      ctx.fillRect(x - 4, GROUND - HURDLE_H, 5, 6);
    } else {
      ctx.save();
      ctx.translate(x, GROUND);
      ctx.rotate(o.fall * 1.35);
      ctx.globalAlpha = 1 - o.fall * 0.6;
      ctx.fillStyle = WOOD;
      ctx.fillRect(-2.5, -DUMMY_H + 30, 5, DUMMY_H - 30);
      ctx.fillRect(-20, -DUMMY_H + 62, 40, 4);
      ctx.fillStyle = '#d9b864';
      ctx.beginPath();
      ctx.ellipse(0, -DUMMY_H + 70, 17, 40, 0, 0, Math.PI * 2);
      ctx.fill();
      ctx.beginPath();
      ctx.arc(0, -DUMMY_H + 18, 13, 0, Math.PI * 2);
      ctx.fill();
      ctx.strokeStyle = ACCENT;
      ctx.lineWidth = 3;
      ctx.beginPath();
      ctx.arc(0, -DUMMY_H + 70, 9, 0, Math.PI * 2);
      ctx.stroke();
      ctx.fillStyle = ACCENT;
      ctx.beginPath();
      ctx.arc(0, -DUMMY_H + 70, 3, 0, Math.PI * 2);
      ctx.fill();
      ctx.restore();
    }
  }
}
function updateHud() {
  const g = state.game;
  $('score').textContent = g ? g.score : 0;
  $('best').textContent = Math.max(state.best, g ? g.score : 0);
  $('dist').textContent = Math.floor(state.worldX / 100);
}

// ---- the lab's throw lets go of a ball (pure decoration: the throw is unarmed) ----
const RELEASE_T = 0.6 * 1.5; // seconds into the throw: the whip's key (moves.c), default duration
let lastMotionTime = 0;
const balls = [];
function stepBalls(dt, p) {
  if (state.labMotion === 'throw' && p.blend >= 1 && lastMotionTime < RELEASE_T && p.motionTime >= RELEASE_T) {
    const h = p.joints[J.HAND_NEAR];
    balls.push({ x: h.x, y: h.y, vx: 430, vy: -240, age: 0 });
  }
  lastMotionTime = p.motionTime;
  for (const b of balls) {
    b.age += dt;
    b.vy += 900 * dt;
    b.x += b.vx * dt;
    b.y += b.vy * dt;
    if (b.y > GROUND - 4) {
      b.y = GROUND - 4;
      b.vy *= -0.45;
      b.vx *= 0.7;
    }
  }
  while (balls.length && (balls[0].age > 2.5 || balls[0].x > state.viewW + 20)) balls.shift();
}
function drawBalls() {
  for (const b of balls) {
    ctx.globalAlpha = Math.max(0, Math.min(1, (2.5 - b.age) / 0.5));
    ctx.fillStyle = ACCENT;
    ctx.beginPath();
    ctx.arc(b.x, b.y, 4.5, 0, Math.PI * 2);
    ctx.fill();
  }
  ctx.globalAlpha = 1;
}

// ---- overlay ----
let overlayAction = null;
function showOverlay(title, sub, button, action) {
  $('overlay-title').textContent = title;
  $('overlay-sub').textContent = sub;
  $('overlay-button').textContent = button;
  overlayAction = action;
  $('overlay').hidden = false;
}
function hideOverlay() {
  $('overlay').hidden = true;
  overlayAction = null;
}
$('overlay-button').addEventListener('click', () => overlayAction && overlayAction());

// ---- frame ----
function frame(dt) {
  dt = Math.min(Math.max(dt, 0), MAX_DT);
  if (Math.abs(state.anchorX - state.anchorTarget) > 0.01) {
    state.anchorX += (state.anchorTarget - state.anchorX) * (1 - Math.exp(-8 * dt));
    anim.setAnchor(state.anchorX, GROUND);
  }
  state.clock += dt;
  const over = state.mode === 'game' && state.game.status === 'over';
  pose = over ? anim.pose() : anim.build(dt);
  if (!over) state.worldX += pose.scrollSpeed * dt;
  if (state.mode === 'game') stepGame(dt, pose);
  else stepBalls(dt, pose);
  draw();
  state.frames++;
}
function draw() {
  const s = state.scale;
  ctx.setTransform(s, 0, 0, s, 0, 0);
  drawBackground(pose.groundOffset);
  if (state.mode === 'game') drawObjects();
  drawFigure(pose);
  if (state.mode === 'lab') drawBalls();
  if (state.mode === 'lab' && state.skeleton) drawSkeleton(pose);
  if (state.mode === 'game' && !state.game.started) {
    // Until the first move: what the keys do, written on the sky.
    ctx.fillStyle = 'rgba(34, 37, 46, 0.72)';
    ctx.textAlign = 'center';
    ctx.font = '600 17px system-ui, sans-serif';
    const touch = window.matchMedia('(pointer: coarse)').matches;
    ctx.fillText(touch ? 'Tap Jump or Thrust to start' : 'Space / \u2191 jump  \u00b7  F / \u2192 thrust',
      state.viewW / 2, 150);
    ctx.font = '14px system-ui, sans-serif';
    ctx.fillStyle = 'rgba(34, 37, 46, 0.5)';
    ctx.fillText('jump the hurdles, spear the straw targets', state.viewW / 2, 174);
    ctx.textAlign = 'start';
  }
  if (state.mode === 'game' && state.game.flash > 0) {
    ctx.fillStyle = `rgba(255, 240, 200, ${0.35 * state.game.flash})`;
    ctx.fillRect(0, 0, state.viewW, DRAW_H);
  }
  if (state.mode === 'lab') {
    $('readout').textContent =
      `phase ${pose.phase.toFixed(2)}  gait ${pose.gait.toFixed(2)}  ground ${pose.scrollSpeed.toFixed(0)} u/s` +
      `  squash ${pose.sy.toFixed(2)}  blend ${pose.blend.toFixed(2)}`;
  }
}

// ---- run / pause (off-screen, hidden tab, reduced motion, the button) ----
const running = () => state.ready && !state.userPaused && !state.hidden && !state.offscreen;
function tick(t) {
  rafId = 0;
  if (!running()) return;
  const dt = lastT ? (t - lastT) / 1000 : 0;
  lastT = t;
  const t0 = performance.now();
  frame(dt);
  work[workAt++ % work.length] = performance.now() - t0; // ms of pose + game + drawing
  rafId = requestAnimationFrame(tick);
}
function updateRunning() {
  const icon = $('pause-icon');
  icon.setAttribute('d', state.userPaused ? 'M6 4l10 6-10 6z' : 'M6 4h3v12H6zM11 4h3v12h-3z');
  $('pause').setAttribute('aria-label', state.userPaused ? 'Play' : 'Pause');
  if (running() && !rafId) {
    lastT = 0; // resume without a time jump
    rafId = requestAnimationFrame(tick);
  }
}
function setPaused(p) {
  state.userPaused = p;
  if (!p && overlayAction === resume) hideOverlay();
  updateRunning();
}
function resume() {
  setPaused(false);
}
$('pause').addEventListener('click', () => {
  setPaused(!state.userPaused);
  if (state.userPaused) showOverlay('Paused', 'The pose holds still.', 'Play', resume);
});
document.addEventListener('visibilitychange', () => {
  state.hidden = document.hidden;
  updateRunning();
});
new IntersectionObserver((entries) => {
  state.offscreen = !entries[0].isIntersecting;
  updateRunning();
}).observe(stage);

// ---- input ----
function start() {
  const g = state.game;
  if (g.started) return;
  g.started = true;
  g.nextSpawn = state.worldX + Math.max(900, state.viewW - state.anchorX + 60); // ~2.3 s away
}
function jump() {
  if (state.mode !== 'game') return;
  if (state.game.status === 'over') return restart();
  if (state.userPaused) return;
  start();
  anim.trigger(Action.JUMP);
}
function thrust() {
  if (state.mode !== 'game' || state.game.status === 'over' || state.userPaused) return;
  start();
  anim.trigger(Action.THRUST);
}
window.addEventListener('keydown', (e) => {
  if (e.target instanceof HTMLInputElement) return;
  if (e.code === 'Space' || e.code === 'ArrowUp') {
    e.preventDefault();
    if (!e.repeat) jump();
  } else if (e.code === 'KeyF' || e.code === 'ArrowRight') {
    e.preventDefault();
    if (!e.repeat) thrust();
  } else if (e.code === 'Enter' && state.mode === 'game' && state.game.status === 'over') {
    restart();
  } else if (e.code === 'KeyP') {
    $('pause').click();
  }
});
$('btn-jump').addEventListener('pointerdown', (e) => {
  e.preventDefault();
  jump();
});
$('btn-thrust').addEventListener('pointerdown', (e) => {
  e.preventDefault();
  thrust();
});
canvas.addEventListener('pointerdown', (e) => {
  if (state.mode !== 'game' || e.pointerType === 'mouse') return;
  const r = canvas.getBoundingClientRect();
  if (e.clientX - r.left < r.width / 2) jump();
  else thrust();
});

// ---- modes and the lab ----
const labMotions = {
  walk: Motion.WALK, run: Motion.RUN, throw: Motion.THROW, jump: Motion.JUMP, form: Motion.SPEAR_FORM,
};
function setMode(mode) {
  state.mode = mode;
  document.body.classList.toggle('game', mode === 'game');
  document.body.classList.toggle('lab', mode === 'lab');
  for (const b of document.querySelectorAll('.modes button'))
    b.setAttribute('aria-selected', String(b.dataset.mode === mode));
  $('panel-game').hidden = mode !== 'game';
  $('panel-lab').hidden = mode !== 'lab';
  state.anchorTarget = anchorFor(mode);
  if (overlayAction === restart) hideOverlay();
  if (mode === 'game') {
    anim.setMotion(Motion.SPEAR_RUN);
    newGame();
  } else {
    setLabMotion(state.labMotion);
  }
  if (!running()) {
    pose = anim.build(0);
    draw();
  }
}
function setLabMotion(name) {
  state.labMotion = name;
  anim.setMotion(labMotions[name]);
  if (name === 'walk' || name === 'run') {
    $('gait').value = name === 'walk' ? 0 : 100;
    anim.setGait(name === 'walk' ? 0 : 1);
  }
  for (const b of document.querySelectorAll('.motions button'))
    b.setAttribute('aria-pressed', String(b.dataset.motion === name));
}
for (const b of document.querySelectorAll('.modes button')) b.addEventListener('click', () => setMode(b.dataset.mode));
for (const b of document.querySelectorAll('.motions button'))
  b.addEventListener('click', () => setLabMotion(b.dataset.motion));
$('gait').addEventListener('input', (e) => {
  const g = Number(e.target.value) / 100;
  if (state.labMotion !== 'walk' && state.labMotion !== 'run') setLabMotion(g < 0.5 ? 'walk' : 'run');
  anim.setMotion(g < 0.5 ? Motion.WALK : Motion.RUN);
  anim.setGait(g);
  for (const b of document.querySelectorAll('.motions button'))
    b.setAttribute('aria-pressed', String(b.dataset.motion === (g < 0.5 ? 'walk' : 'run')));
  state.labMotion = g < 0.5 ? 'walk' : 'run';
});
$('skeleton').addEventListener('change', (e) => {
  state.skeleton = e.target.checked;
  if (!running()) draw();
});

// ---- start ----
window.addEventListener('error', (e) => state.errors.push(String(e.message)));
async function main() {
  try {
    state.best = Number(localStorage.getItem(BEST_KEY)) || 0;
  } catch {
    state.best = 0;
  }
  anim = await loadAnim2d();
  resize();
  anim.init(state.anchorX, GROUND);
  newGame();
  setMode(new URLSearchParams(location.search).get('mode') === 'lab' ? 'lab' : 'game');
  new ResizeObserver(() => {
    resize();
    if (!running() && pose) draw();
  }).observe(stage);
  const reduce = window.matchMedia('(prefers-reduced-motion: reduce)');
  pose = anim.build(0); // a still first frame
  draw();
  if (reduce.matches) {
    state.userPaused = true;
    showOverlay('Paused', 'Your system asks for reduced motion.', 'Play anyway', resume);
  }
  state.ready = true;
  updateRunning();
  // A small window into the running page for tests and curious people: the pose is read
  // back from the WebAssembly module's memory on every call.
  window.stickman = {
    ready: true,
    pose: () => JSON.parse(JSON.stringify(anim.pose())),
    motion: () => anim.motion(),
    get mode() { return state.mode; },
    get paused() { return !running(); },
    get frames() { return state.frames; },
    get score() { return state.game.score; },
    get status() { return state.game.status; },
    get started() { return state.game.started; },
    get errors() { return state.errors.slice(); },
    // What is coming: kind, world x (an id), whether it is dealt with, units ahead of the runner.
    objects: () =>
      state.game.objects.map((o) => ({ kind: o.kind, x: o.x, done: o.done, ahead: o.x - state.worldX })),
    // Advances one frame of dt seconds while paused (frame-by-frame inspection).
    step: (dt = 1 / 60) => {
      if (!running()) frame(dt);
    },
    workTimes: () => Array.from(work.subarray(0, Math.min(workAt, work.length))),
  };
}
main().catch((e) => {
  state.errors.push(String(e));
  console.error(e);
  showOverlay('This page needs WebAssembly', String(e.message || e), 'Reload', () => location.reload());
});
