// Multi-page Vite build: every top-level *.html here is a page (index.html is the stickman;
// viewer.html joins automatically when it lands). base './' so dist/ works from any folder.
import { defineConfig } from 'vite';
import { readdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pages = Object.fromEntries(
  readdirSync(here)
    .filter((f) => f.endsWith('.html'))
    .map((f) => [f.replace(/\.html$/, ''), resolve(here, f)]),
);

export default defineConfig({
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2020',
    rollupOptions: { input: pages },
  },
  server: { host: '127.0.0.1' },
});
