// Compiles sinew's anim2d module (C) to WebAssembly for the stickman page:
// clang-14 --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor -O2, exports by
// __attribute__((export_name)). Output: web/generated/anim2d.wasm (imported by src/anim2d.js).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, statSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const root = resolve(web, '..');
const srcDir = join(root, 'src', 'anim2d');
const sources = [
  ...readdirSync(srcDir).filter((f) => f.endsWith('.c')).sort().map((f) => join(srcDir, f)),
  join(web, 'wasm', 'anim2d', 'exports.c'),
];
const outDir = join(web, 'generated');
const out = join(outDir, 'anim2d.wasm');
const inputs = [...sources, join(root, 'include', 'sinew', 'anim2d.h'), join(srcDir, 'internal.h')];
if (existsSync(out) && process.argv[2] !== '--force') {
  const built = statSync(out).mtimeMs;
  if (inputs.every((f) => statSync(f).mtimeMs <= built)) {
    console.log(`wasm: ${out} is up to date`);
    process.exit(0);
  }
}
mkdirSync(outDir, { recursive: true });
const clang = process.env.CLANG || 'clang-14';
const tmp = `${out}.tmp-${process.pid}`;
const args = [
  '--target=wasm32-wasi', '--sysroot=/usr', '-mexec-model=reactor', '-O2', '-std=c11',
  '-Wall', '-Wextra', '-Wno-unused-parameter',
  '-I', join(root, 'include'), '-I', join(root, 'src'),
  ...sources, '-o', tmp,
];
try {
  execFileSync(clang, args, { stdio: 'inherit' });
} catch (e) {
  console.error(`wasm: ${clang} failed (is clang-14 with wasi-libc installed? see scripts/setup.sh)`);
  process.exit(1);
}
renameSync(tmp, out); // never leave a half-written module behind
console.log(`wasm: wrote ${out} (${statSync(out).size} bytes)`);
