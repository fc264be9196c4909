// The WebAssembly build of the dyn runtime agrees with the native one to 1e-6: the same
// scenario (a creature with a 6-bone tail, violent hips, teleport, dt from 0 to 0.3 s, a
// raised and a disabled floor) runs through web/wasm/dyn/sinew_dyn.mjs and through the
// native tests/dyn/dyn_reference program, and every rotation and particle is compared; the
// first scenario runs again through the same wrapper in headless Chromium (skipped, saying
// so, when /usr/bin/chromium is absent).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const build = process.env.SINEW_BUILD || join(root, 'build-dyn');
const native = join(build, 'bin', 'dyn_reference');
let wasmPath = join(build, 'wasm', 'sinew_dyn.wasm');
if (!existsSync(native)) {
  console.error(`missing ${native}: build the dyn_reference target first`);
  process.exit(1);
}
if (!existsSync(wasmPath)) {
  wasmPath = execFileSync('sh', [join(root, 'web/wasm/dyn/build.sh'), join(build, 'wasm')])
    .toString().trim();
}
const { loadSinewDyn } = await import(join(root, 'web/wasm/dyn/sinew_dyn.mjs'));
const { readFileSync } = await import('node:fs');
const dyn = await loadSinewDyn(readFileSync(wasmPath));

// ---- small column-major matrix helpers (Float64 in JS, rounded to float32 at the edge) ----
function trs(t, q, s = [1, 1, 1]) {
  const [x, y, z, w] = q;
  const m = new Float64Array(16);
  m[0] = (1 - 2 * (y * y + z * z)) * s[0]; m[1] = 2 * (x * y + w * z) * s[0]; m[2] = 2 * (x * z - w * y) * s[0];
  m[4] = 2 * (x * y - w * z) * s[1]; m[5] = (1 - 2 * (x * x + z * z)) * s[1]; m[6] = 2 * (y * z + w * x) * s[1];
  m[8] = 2 * (x * z + w * y) * s[2]; m[9] = 2 * (y * z - w * x) * s[2]; m[10] = (1 - 2 * (x * x + y * y)) * s[2];
  m[12] = t[0]; m[13] = t[1]; m[14] = t[2]; m[15] = 1;
  return m;
}
function mul(a, b) {
  const r = new Float64Array(16);
  for (let c = 0; c < 4; c++) for (let row = 0; row < 4; row++) {
    let s = 0;
    for (let k = 0; k < 4; k++) s += a[k * 4 + row] * b[c * 4 + k];
    r[c * 4 + row] = s;
  }
  return r;
}
function invRigid(m) { // rotation + translation only
  const r = new Float64Array(16);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) r[j * 4 + i] = m[i * 4 + j];
  for (let i = 0; i < 3; i++) r[12 + i] = -(r[i] * m[12] + r[4 + i] * m[13] + r[8 + i] * m[14]);
  r[15] = 1;
  return r;
}
const axisAngle = (ax, a) => {
  const l = Math.hypot(...ax), s = Math.sin(a / 2);
  return [ax[0] / l * s, ax[1] / l * s, ax[2] / l * s, Math.cos(a / 2)];
};
const qmul = (a, b) => [
  a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
  a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
  a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
  a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]];

// ---- the creature: Root, Hips, a leg, Tail_1..Tail_6 (the last one rotated), Tail_End ----
const I = [0, 0, 0, 1];
const names = ['Root', 'Hips', 'LeftUpLeg'];
const parents = [-1, 0, 1];
const bindT = [[0, 0, 0], [0, 1, 0], [0.15, 0.9, 0]];
const bindQ = [I, I, I];
let p = [0, 0.95, -0.12];
const dir = [0, -0.6, -1].map((v) => v / Math.hypot(0, 0.6, 1));
for (let k = 0; k < 6; k++) {
  names.push(`Tail_${k + 1}`); parents.push(k === 0 ? 1 : names.length - 2);
  bindT.push([...p]); bindQ.push(k === 5 ? axisAngle([0.3, 0.2, 0.9], 0.5) : I);
  p = p.map((v, i) => v + dir[i] * 0.8 / 6);
}
names.push('Tail_End'); parents.push(names.length - 2); bindT.push([...p]); bindQ.push(I);
const n = names.length;
const bindW = bindT.map((t, i) => trs(t, bindQ[i]));
const ibm = bindW.map(invRigid);
const rest = bindW.map((w, i) => {
  const l = parents[i] < 0 ? w : mul(invRigid(bindW[parents[i]]), w);
  // rotation of a rigid matrix back to a quaternion: identity except the rotated bone
  const q = i === 0 || parents[i] < 0 ? bindQ[i]
    : qmul([-bindQ[parents[i]][0], -bindQ[parents[i]][1], -bindQ[parents[i]][2], bindQ[parents[i]][3]], bindQ[i]);
  return [l[12], l[13], l[14], ...q, 1, 1, 1];
});
const fmt = (v) => Math.fround(v).toPrecision(9);

function scenario(kind) {
  const frames = [];
  let t = 0;
  for (let f = 0; f < 420; f++) {
    let dt = 1 / 60;
    if (f === 0) dt = 0;
    else if (f % 37 === 0) dt = 0;
    else if (f % 53 === 0) dt = 0.3;
    else if (f > 120 && f < 160) dt = 1 / 30;
    else if (f > 160 && f < 200) dt = 1 / 144;
    t += dt;
    let hp = [0.5 * Math.sin(9.42 * t), 1 + 0.25 * Math.sin(7.3 * t) - (f > 260 && f < 330 ? 0.6 : 0),
      0.5 * Math.sin(3.1 * t + 0.5)];
    if (f >= 220) hp = [hp[0] + 6, hp[1], hp[2] - 3]; // a teleport at frame 220
    const hq = qmul(axisAngle([0, 1, 0], 1.57 * Math.sin(6.28 * t)), axisAngle([0, 0, 1], 0.52 * Math.sin(4.1 * t + 1)));
    const hw = trs(hp, hq);
    const world = [];
    for (let i = 0; i < n; i++) {
      if (i === 1) world.push(hw);
      else world.push(parents[i] < 0 ? bindW[i] : mul(world[parents[i]], trs(rest[i].slice(0, 3), rest[i].slice(3, 7))));
    }
    const mode = f > 300 && f < 360 ? 1 : f >= 360 ? 0 : -1;
    frames.push({ dt: Math.fround(dt), mode, height: 0.5, world });
  }
  const params = kind === 0 ? {} : { maxStep: 1 / 120, restCurve: 0.5, curvature: 0.3, couplingRate: 20,
    referenceSize: 2.5, frequencyRoot: 1.2 };
  const chain = kind === 0 ? null : [3, 4, 5, 6, 7];
  return { frames, params, chain };
}

const FIELDS = ['frequencyRoot', 'frequencyTip', 'dampingRatio', 'gravity', 'carry', 'restCurve',
  'curvature', 'couplingRate', 'bendLimit', 'floorHeight', 'floorClearance', 'contactDamping',
  'maxStep', 'maxSubsteps', 'teleportDistance', 'referenceSize', 'disable'];

// Runs one scenario through a loaded sinew_dyn.mjs; self-contained so that the browser can
// run the same function. Returns, per frame, the rotations then the tip particles.
function runScenario(dyn, input) {
  const rig = dyn.createRig({ ...input.skeleton, inverseBinds: Float32Array.from(input.skeleton.inverseBinds),
    rest: Float32Array.from(input.skeleton.rest) }, { chain: input.chain, params: input.params });
  const rows = [];
  for (const fr of input.frames) {
    const rot = rig.step(Float32Array.from(fr.world), fr.dt, fr.floor === null ? null : fr.floor);
    rows.push([...rot, ...rig.particles().positions]);
  }
  rig.free();
  return rows;
}
function compare(rows, nativeOut) {
  let w = 0;
  rows.forEach((got, idx) => {
    const want = nativeOut[idx];
    if (got.length !== want.length) throw new Error(`frame ${idx}: ${got.length} values, native ${want.length}`);
    for (let k = 0; k < got.length; k++) w = Math.max(w, Math.abs(got[k] - want[k]) / Math.max(1, Math.abs(want[k])));
  });
  return w;
}
const inputs = [];

let worst = 0;
const dir_ = mkdtempSync(join(tmpdir(), 'sinew-wasm-'));
try {
  for (const kind of [0, 1]) {
    const sc = scenario(kind);
    // text for the native program
    const lines = [`sinew-dyn-scenario 1 nodes ${n} size 1.91`];
    for (let i = 0; i < n; i++)
      lines.push(`${names[i]} ${parents[i]} ${Array.from(ibm[i], fmt).join(' ')} ${rest[i].map(fmt).join(' ')}`);
    lines.push(sc.chain ? `chain ${sc.chain.length} ${sc.chain.join(' ')} end -1` : 'chain 0 end -1');
    lines.push(`params ${FIELDS.map((k) => fmt(sc.params[k] || 0)).join(' ')}`);
    lines.push(`frames ${sc.frames.length}`);
    for (const fr of sc.frames)
      lines.push(`${fmt(fr.dt)} ${fr.mode} ${fmt(fr.height)} ${fr.world.map((w) => Array.from(w, fmt).join(' ')).join(' ')}`);
    const file = join(dir_, `scenario${kind}.txt`);
    writeFileSync(file, lines.join('\n') + '\n');
    const nativeOut = execFileSync(native, [file], { maxBuffer: 1 << 28 }).toString().trim().split('\n')
      .map((l) => l.trim().split(/\s+/).map(Number));

    // the same through wasm (values rounded to float32 exactly as the native parser does)
    const f32 = (a) => Array.from(Float32Array.from(a.map((v) => Number(fmt(v)))));
    const input = {
      skeleton: { parents, names, size: 1.91, inverseBinds: f32(ibm.flatMap((m) => Array.from(m))),
        rest: f32(rest.flat()) },
      chain: sc.chain,
      params: Object.fromEntries(FIELDS.map((k) => [k, Number(fmt(sc.params[k] || 0))])),
      frames: sc.frames.map((fr) => ({ world: f32(fr.world.flatMap((w) => Array.from(w))),
        dt: Number(fmt(fr.dt)), floor: fr.mode < 0 ? undefined : fr.mode === 0 ? null : Number(fmt(fr.height)) })),
    };
    inputs.push({ input, nativeOut });
    const rows = runScenario(dyn, input);
    const kindWorst = compare(rows, nativeOut);
    let moved = 0;
    for (let idx = 1; idx < rows.length; idx++) moved = Math.max(moved, Math.abs(rows[idx][0] - rows[idx - 1][0]));
    console.log(`scenario ${kind}: ${sc.frames.length} frames, ${nativeOut[0].length} values each, ` +
      `worst |wasm - native| = ${kindWorst.toExponential(2)} (relative above 1), motion ${moved.toFixed(3)}`);
    if (moved < 0.01) throw new Error('the chain did not move: the comparison would prove nothing');
    worst = Math.max(worst, kindWorst);
  }
} finally {
  rmSync(dir_, { recursive: true, force: true });
}
// ---- the same wrapper and wasm in headless Chromium (the browser half of "Node and the
// browser"), served over HTTP; skipped, saying so, without Chromium ----
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
if (existsSync(chromiumPath)) {
  const { createServer } = await import('node:http');
  const { createRequire } = await import('node:module');
  const files = { '/sinew_dyn.mjs': [join(root, 'web/wasm/dyn/sinew_dyn.mjs'), 'text/javascript'],
    '/sinew_dyn.wasm': [wasmPath, 'application/wasm'] };
  const server = createServer((req, res) => {
    const f = files[req.url];
    if (req.url === '/') { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<!doctype html><title>dyn</title>'); return; }
    if (!f) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'content-type': f[1] });
    res.end(readFileSync(f[0]));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}/`;
  const require = createRequire(join(root, 'package.json'));
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--no-first-run'] });
  try {
    const page = await browser.newPage();
    await page.goto(url);
    const { input, nativeOut } = inputs[0];
    const rows = await page.evaluate(async ({ input, fn }) => {
      const { loadSinewDyn } = await import('/sinew_dyn.mjs');
      const dyn = await loadSinewDyn('/sinew_dyn.wasm');
      const runScenario = new Function(`return (${fn})`)();
      return runScenario(dyn, input);
    }, { input, fn: runScenario.toString() });
    const w = compare(rows, nativeOut);
    console.log(`browser (Chromium): scenario 0, worst |wasm - native| = ${w.toExponential(2)}`);
    worst = Math.max(worst, w);
  } finally {
    await browser.close();
    server.close();
  }
} else {
  console.log(`note: ${chromiumPath} is absent: skipping the browser half`);
}

if (!(worst <= 1e-6)) {
  console.error(`FAIL: wasm and native differ by ${worst}`);
  process.exit(1);
}
console.log('wasm and native agree to 1e-6');
