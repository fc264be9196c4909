// What the browser tests (tests/browser, tests/viewer) and the stickman frame bench
// (bench/anim2d/frames.mjs) share: web/dist built when missing or older than its sources, a
// static server for a folder on 127.0.0.1 at a free port (web/scripts/serve.mjs), and Debian's
// Chromium through playwright-core with the flags headless WebGL2 needs (SwiftShader).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const web = join(root, 'web');
export const dist = join(web, 'dist');

// playwright-core as web/ resolves it (web/node_modules first, then the root's).
const require = createRequire(join(web, 'package.json'));
export const playwright = require('playwright-core');

// What web/dist is built from: both pages, the web sources, and the C modules compiled to
// WebAssembly for them (anim2d for the stickman, dyn for the viewer's live springs).
const SOURCES = [
  join(web, 'index.html'), join(web, 'viewer.html'), join(web, 'src'), join(web, 'wasm'),
  join(web, 'scripts'), join(web, 'package.json'), join(web, 'vite.config.js'),
  join(root, 'src', 'anim2d'), join(root, 'include', 'sinew', 'anim2d.h'),
  join(root, 'src', 'dyn'), join(root, 'include', 'sinew', 'dyn.h'),
];

// Newest modification time (ms) below `path`, outputs and dependencies left out.
function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let t = 0;
  for (const f of readdirSync(path)) if (f !== 'node_modules' && f !== 'dist' && f !== 'generated') t = Math.max(t, newest(join(path, f)));
  return t;
}

// Builds web/dist (`npm ci` first when web/node_modules lacks vite or three) when dist/`page`
// is missing or older than any source; `label` prefixes the lines it prints. Throws when the
// build fails.
export function ensureWebDist(page = 'index.html', label = 'browser') {
  const built = join(dist, page);
  const builtAt = existsSync(built) ? statSync(built).mtimeMs : 0;
  if (builtAt && !SOURCES.filter(existsSync).some((s) => newest(s) > builtAt)) return;
  if (!existsSync(join(web, 'node_modules', 'vite')) || !existsSync(join(web, 'node_modules', 'three'))) {
    console.log(`${label}: npm --prefix web ci`);
    execFileSync('npm', ['--prefix', web, 'ci', '--no-audit', '--no-fund'], { stdio: 'inherit' });
  }
  console.log(`${label}: web/dist is missing or stale: npm --prefix web run build`);
  execFileSync('npm', ['--prefix', web, 'run', 'build'], { stdio: 'inherit' });
}

// Serves `folder` on http://127.0.0.1:<free port>/; resolves to { server, url } (url ends in
// '/'); `server.close()` stops it.
export async function serveFolder(folder) {
  const { serve } = await import(join(web, 'scripts', 'serve.mjs'));
  return serve(folder);
}

// Headless Chromium flags: no sandbox (containers), software GL, nothing phoning home.
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'];
const chromiumOptions = () => ({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });

// Chromium with a fresh temporary profile, as a persistent context; `options` adds to the
// launch options (viewport, ...). Resolves to { context, close }: close() ends the browser and
// removes the profile.
export async function launchContext(options = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'sinew-chromium-'));
  const removeProfile = () => rmSync(profile, { recursive: true, force: true });
  let context;
  try {
    context = await playwright.chromium.launchPersistentContext(profile, { ...chromiumOptions(), ...options });
  } catch (e) {
    removeProfile();
    throw e;
  }
  return { context, close: async () => { try { await context.close(); } finally { removeProfile(); } } };
}

// A separate Chromium (playwright gives it its own fresh profile), for contexts with their own
// device settings; close it with browser.close().
export function launchBrowser() {
  return playwright.chromium.launch(chromiumOptions());
}

// Collects what should never happen on a page: console errors, uncaught exceptions and failed
// requests. watch(page, label) subscribes a page; errors lists "label: kind: text" lines.
export function pageErrors() {
  const errors = [];
  const watch = (page, label) => {
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`${label}: console: ${m.text()}`); });
    page.on('pageerror', (e) => errors.push(`${label}: pageerror: ${e.message}`));
    page.on('requestfailed', (r) => errors.push(`${label}: request failed: ${r.url()}`));
  };
  return { errors, watch };
}
