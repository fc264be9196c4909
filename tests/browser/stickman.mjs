// The stickman page in headless Chromium: no console errors, the canvas is drawn,
// jump and thrust change the pose (read back through the wasm API), lab mode switches
// motions, reduced motion starts paused, pausing off-screen; a screenshot of each mode goes to
// <build>/artifacts/. Builds web/dist first when it is missing or older than its sources.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { dist, ensureWebDist, launchBrowser, launchContext, pageErrors, playwright, root, serveFolder } from '../tools/browser.mjs';

const artifacts = join(process.env.SINEW_BUILD || join(root, 'build'), 'artifacts');
ensureWebDist('index.html', 'browser');

let failures = 0;
const t0 = Date.now();
function check(ok, what, detail = '') {
  const at = ((Date.now() - t0) / 1000).toFixed(1).padStart(5);
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${at}s ${what}${detail ? `: ${detail}` : ''}`);
  if (!ok) failures++;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const { server, url } = await serveFolder(dist);
mkdirSync(artifacts, { recursive: true });
const browser = await launchContext({ viewport: { width: 1100, height: 760 } });
const { context } = browser;

// Every page of the test reports console errors and uncaught exceptions here.
const { errors, watch } = pageErrors();
async function open(page, query = '') {
  await page.goto(`${url}index.html${query}`, { waitUntil: 'load' });
  await page.waitForFunction(() => window.stickman && window.stickman.ready, null, { timeout: 15000 });
}
// Ink pixels on the canvas (dark figure strokes) and the number of distinct colours.
const canvasStats = (page) => page.evaluate(() => {
  const c = document.getElementById('canvas');
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let ink = 0;
  const colours = new Set();
  for (let i = 0; i < d.length; i += 16) {
    if (d[i] < 80 && d[i + 1] < 80 && d[i + 2] < 90) ink++;
    colours.add((d[i] >> 4) << 8 | (d[i + 1] >> 4) << 4 | d[i + 2] >> 4);
  }
  return { ink, colours: colours.size, w: c.width, h: c.height };
});
// Samples the pose (from the wasm module) for `ms` and returns the samples.
async function sample(page, ms) {
  const out = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    out.push(await page.evaluate(() => window.stickman.pose()));
    await sleep(20);
  }
  return out;
}
const shot = (page, name) => page.locator('#stage').screenshot({ path: join(artifacts, name) });

try {
  // ---- Spear Run, the default mode ----
  const page = await context.newPage();
  watch(page, 'game');
  await open(page);
  check(await page.evaluate(() => window.stickman.mode) === 'game', 'Spear Run is the default mode');
  await sleep(400);
  const f0 = await page.evaluate(() => window.stickman.frames);
  await sleep(1000);
  const f1 = await page.evaluate(() => window.stickman.frames);
  check(f1 > f0 + 5, 'the animation runs', `${f1 - f0} frames in 1 s`);
  const st = await canvasStats(page);
  check(st.ink > 150 && st.colours > 12, 'the canvas is drawn', `${st.ink} ink samples, ${st.colours} colours, ${st.w}x${st.h}`);
  const motion = await page.evaluate(() => window.stickman.motion());
  check(motion === 6, 'the figure runs with the spear', `motion ${motion}`);

  const before = await sample(page, 300);
  const restLift = Math.max(...before.map((p) => p.lift));
  const restTip = Math.max(...before.map((p) => p.joints[13].x));
  check(before.every((p) => p.scrollSpeed > 380), 'the ground scrolls at the run speed', `${before[0].scrollSpeed.toFixed(1)} units/s`);
  check(!(await page.evaluate(() => window.stickman.started)) &&
    (await page.evaluate(() => window.stickman.objects().length)) === 0,
    'no obstacles before the first move');
  await page.keyboard.press('Space');
  const jump = await sample(page, 700);
  check(await page.evaluate(() => window.stickman.started), 'the first jump starts the game');
  const jumpLift = Math.max(...jump.map((p) => p.lift));
  check(jumpLift > restLift + 60, 'Space jumps', `feet up to ${jumpLift.toFixed(0)} units (running: ${restLift.toFixed(0)})`);
  // (The first hurdle is ~2 s of game time away from the first key: game time never runs
  // ahead of wall time, since dt is clamped, so these checks finish before it arrives.)
  await sleep(300);
  await page.keyboard.press('KeyF');
  const thrust = await sample(page, 450);
  const maxThrust = Math.max(...thrust.map((p) => p.thrust));
  const thrustTip = Math.max(...thrust.map((p) => p.joints[13].x));
  check(maxThrust > 0.9 && thrustTip > restTip + 20, 'F thrusts the spear',
    `thrust ${maxThrust.toFixed(2)}, tip ${restTip.toFixed(0)} -> ${thrustTip.toFixed(0)}`);
  await open(page); // a fresh game for the arrow keys
  await sleep(200);
  await page.keyboard.press('ArrowUp');
  const jump2 = await sample(page, 500);
  check(Math.max(...jump2.map((p) => p.lift)) > restLift + 60, 'ArrowUp jumps too');
  await page.keyboard.press('ArrowRight');
  const thrust2 = await sample(page, 400);
  check(Math.max(...thrust2.map((p) => p.thrust)) > 0.9, 'ArrowRight thrusts too');
  // The game is playable: a bot that jumps hurdles ~170 units ahead and thrusts at straw
  // targets ~230 ahead clears 8 s of obstacles and scores.
  await open(page); // a fresh game for the bot, started by a thrust
  await sleep(200);
  await page.keyboard.press('KeyF');
  const bot = await page.evaluate(() => new Promise((done) => {
    const handled = new Set();
    const start = performance.now();
    const step = () => {
      const s = window.stickman;
      for (const o of s.objects()) {
        if (o.done || handled.has(o.x)) continue;
        if (o.kind === 'hurdle' && o.ahead > 150 && o.ahead < 200) {
          window.dispatchEvent(new KeyboardEvent('keydown', { code: 'Space' }));
          handled.add(o.x);
        }
        if (o.kind === 'dummy' && o.ahead > 200 && o.ahead < 250) {
          window.dispatchEvent(new KeyboardEvent('keydown', { code: 'KeyF' }));
          handled.add(o.x);
        }
      }
      if (s.status === 'over' || performance.now() - start > 8000) done({ status: s.status, score: s.score });
      else requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  }));
  check(bot.status === 'running' && bot.score >= 3, 'the game is playable: a timed bot clears 8 s',
    `status ${bot.status}, score ${bot.score}`);
  await shot(page, 'stickman-game.png');
  // Run into something: the game ends, and Space restarts it.
  await page.waitForFunction(() => window.stickman.status === 'over', null, { timeout: 40000 });
  const overlay = await page.locator('#overlay').isVisible();
  check(overlay, 'running into an obstacle ends the game');
  await shot(page, 'stickman-game-over.png');
  await page.keyboard.press('Space');
  await sleep(200);
  check(await page.evaluate(() => window.stickman.status) === 'running', 'Space restarts');
  await shot(page, 'stickman-game-start.png');

  // ---- the motion lab ----
  await page.click('#tab-lab');
  await sleep(100);
  check(await page.evaluate(() => window.stickman.mode) === 'lab', 'the lab tab opens the motion lab');
  const labs = [['walk', 1], ['run', 2], ['throw', 3], ['jump', 4], ['form', 5]];
  for (const [name, id] of labs) {
    await page.click(`.motions button[data-motion="${name}"]`);
    await sleep(name === 'form' ? 2200 : name === 'throw' ? 1050 : 700);
    const m = await page.evaluate(() => window.stickman.motion());
    const p = await page.evaluate(() => window.stickman.pose());
    check(m === id, `lab: ${name} switches the motion`, `motion ${m}, blend ${p.blend.toFixed(2)}`);
    if (name === 'walk' || name === 'run') check(p.scrollSpeed > 50, `lab: ${name} scrolls the ground`, `${p.scrollSpeed.toFixed(0)} units/s`);
    else check(p.scrollSpeed === 0, `lab: ${name} stops the ground`);
    if (name === 'form') check(p.spearAlpha === 1, 'lab: the spear form holds the spear');
    await shot(page, `stickman-lab-${name}.png`);
  }
  await page.click('#skeleton');
  await page.click('.motions button[data-motion="walk"]');
  await page.locator('#gait').fill('50');
  await sleep(900);
  const mid = await page.evaluate(() => window.stickman.pose());
  check(mid.gait > 0.3 && mid.gait < 0.7, 'lab: the walk-run slider blends the gait', `gait ${mid.gait.toFixed(2)}`);
  await shot(page, 'stickman-lab-skeleton.png');

  // Off-screen pauses: scroll the stage out of view in a short window.
  await page.setViewportSize({ width: 900, height: 260 });
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await sleep(400);
  const off = await page.evaluate(() => window.stickman.paused);
  const fa = await page.evaluate(() => window.stickman.frames);
  await sleep(300);
  const fb = await page.evaluate(() => window.stickman.frames);
  check(off && fa === fb, 'off-screen pauses the animation', `paused ${off}, ${fb - fa} frames`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await sleep(300);
  check(!(await page.evaluate(() => window.stickman.paused)), 'back on screen resumes');
  await page.close();

  // ---- reduced motion ----
  const still = await context.newPage();
  watch(still, 'reduced');
  await still.emulateMedia({ reducedMotion: 'reduce' });
  await open(still);
  await sleep(600);
  const rm = await still.evaluate(() => ({ paused: window.stickman.paused, frames: window.stickman.frames }));
  const rs = await canvasStats(still);
  check(rm.paused && rm.frames === 0, 'reduced motion starts paused', `paused ${rm.paused}, ${rm.frames} frames`);
  check(rs.ink > 150, 'reduced motion shows a still frame', `${rs.ink} ink samples`);
  await shot(still, 'stickman-reduced-motion.png');
  await still.click('#overlay-button');
  await sleep(400);
  check((await still.evaluate(() => window.stickman.frames)) > 5, 'Play starts it');
  await still.close();
  // ---- a phone: touch buttons, a stage wider than tall ----
  const phone = await launchBrowser();
  try {
    const { devices } = playwright;
    const pctx = await phone.newContext({ ...devices['Pixel 5'] });
    const pp = await pctx.newPage();
    watch(pp, 'phone');
    await open(pp);
    const box = await pp.locator('#stage').boundingBox();
    check(await pp.locator('#btn-jump').isVisible() && await pp.locator('#btn-thrust').isVisible(),
      'phone: touch buttons are shown');
    check(box.height <= box.width * 0.76, 'phone: the stage stays wider than tall',
      `${box.width.toFixed(0)}x${box.height.toFixed(0)}`);
    await pp.locator('#btn-jump').tap();
    const tapJump = await sample(pp, 700);
    check(Math.max(...tapJump.map((p) => p.lift)) > 60, 'phone: tapping Jump jumps');
    await pp.locator('#btn-thrust').tap();
    const tapThrust = await sample(pp, 450);
    check(Math.max(...tapThrust.map((p) => p.thrust)) > 0.9, 'phone: tapping Thrust thrusts');
    await pp.screenshot({ path: join(artifacts, 'stickman-phone.png') });
    await pctx.close();
  } finally {
    await phone.close();
  }
} catch (e) {
  check(false, 'browser test ran to the end', e.stack || String(e));
} finally {
  await browser.close();
  server.close();
}
check(errors.length === 0, 'no console errors', errors.join(' | '));
console.log(`browser: screenshots in ${artifacts}`);
console.log(failures ? `browser: ${failures} check(s) failed` : 'browser: all checks passed');
process.exit(failures ? 1 : 0);
