// Frame times of the stickman page in headless Chromium over 5 s per mode (Spear Run, and the
// lab's spear form), plus anim2d's build_pose in WebAssembly under V8 (Node). Prints per-frame
// costs beside the anchors: 60 Hz = 16.7 ms per frame; build_pose < 2 us native.
// Usage: node bench/anim2d/frames.mjs   (builds web/dist first when missing or stale)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { dist, ensureWebDist, launchContext, serveFolder } from '../../tests/tools/browser.mjs';

ensureWebDist('index.html', 'frames');

const q = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

// ---- wasm build_pose under V8 ----
{
  const assets = join(dist, 'assets');
  const file = readdirSync(assets).find((f) => f.startsWith('anim2d') && f.endsWith('.wasm'));
  const { instance } = await WebAssembly.instantiate(readFileSync(join(assets, file)), {});
  const x = instance.exports;
  x._initialize?.();
  x.a2_init(200, 372);
  const best = (motion, n) => {
    x.a2_set_motion(motion);
    for (let i = 0; i < 2000; i++) x.a2_build_pose(1 / 60);
    let bestNs = Infinity;
    for (let r = 0; r < 7; r++) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) {
        if (motion === 6 && i % 60 === 0) x.a2_trigger(1);
        if (motion === 6 && i % 40 === 0) x.a2_trigger(2);
        x.a2_build_pose(1 / 60);
      }
      bestNs = Math.min(bestNs, Number(process.hrtime.bigint() - t0) / n);
    }
    return bestNs;
  };
  console.log('anim2d build_pose in WebAssembly (V8, best of 7 x 50000 frames; native goal < 2000 ns):');
  for (const [name, m] of [['walk', 1], ['run', 2], ['throw', 3], ['jump', 4], ['spear form', 5], ['spear run', 6]])
    console.log(`  ${name.padEnd(12)} ${best(m, 50000).toFixed(0).padStart(6)} ns/frame`);
}

// ---- the page in headless Chromium ----
const { server, url } = await serveFolder(dist);
const browser = await launchContext({ viewport: { width: 1280, height: 800 } });
const { context } = browser;
try {
  console.log('stickman page in headless Chromium (software canvas), 5 s per mode (anchor: 16.7 ms at 60 Hz):');
  for (const [label, query, click] of [['Spear Run', '', null], ['lab: spear form', '?mode=lab', 'form']]) {
    const page = await context.newPage();
    await page.goto(`${url}index.html${query}`);
    await page.waitForFunction(() => window.stickman && window.stickman.ready);
    if (click) await page.click(`.motions button[data-motion="${click}"]`);
    // Keep the runner alive in the game: jump and thrust on a rhythm (crashes just restart).
    const stamps = await page.evaluate(async () => {
      const out = [];
      const end = performance.now() + 5000;
      let k = 0;
      await new Promise((done) => {
        const f = (t) => {
          out.push(t);
          if (window.stickman.mode === 'game' && ++k % 25 === 0)
            window.dispatchEvent(new KeyboardEvent('keydown', { code: k % 50 ? 'Space' : 'KeyF' }));
          if (t < end) requestAnimationFrame(f); else done();
        };
        requestAnimationFrame(f);
      });
      return out;
    });
    const work = await page.evaluate(() => window.stickman.workTimes());
    const gaps = stamps.slice(1).map((t, i) => t - stamps[i]);
    const long = gaps.filter((g) => g > 25).length;
    console.log(`  ${label.padEnd(16)} ${gaps.length} frames: interval mean ${mean(gaps).toFixed(2)} ms, ` +
      `p95 ${q(gaps, 0.95).toFixed(2)} ms, max ${Math.max(...gaps).toFixed(1)} ms, ${long} over 25 ms; ` +
      `work per frame (pose + game + draw) mean ${mean(work).toFixed(3)} ms, p95 ${q(work, 0.95).toFixed(3)} ms`);
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}
