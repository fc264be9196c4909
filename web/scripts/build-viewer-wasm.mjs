// Builds the spring-chain runtime (src/dyn) for the viewer's "Live springs" mode, by running
// the dyn helper's own script (web/wasm/dyn/build.sh, clang-14 --target=wasm32-wasi) into
// web/generated/sinew_dyn.wasm, which web/src/viewer/springs.js imports (Vite copies it into
// dist/assets). Skips the build when the module is newer than every input; `--force` rebuilds.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const root = resolve(web, '..');
const outDir = join(web, 'generated');
const out = join(outDir, 'sinew_dyn.wasm');
const script = join(web, 'wasm', 'dyn', 'build.sh');

const inDir = (dir, ext) => (existsSync(dir)
  ? readdirSync(dir).filter((f) => f.endsWith(ext)).map((f) => join(dir, f)) : []);
const inputs = [
  script, join(web, 'wasm', 'dyn', 'dyn_wasm.c'),
  ...inDir(join(root, 'src', 'dyn'), '.c'), ...inDir(join(root, 'src', 'dyn'), '.h'),
  join(root, 'src', 'math', 'math.c'), join(root, 'src', 'base', 'base.c'),
  join(root, 'include', 'sinew', 'dyn.h'), join(root, 'include', 'sinew', 'math.h'),
  join(root, 'include', 'sinew', 'model.h'), join(root, 'include', 'sinew', 'base.h'),
].filter(existsSync);

if (!existsSync(script)) {
  console.error(`viewer wasm: ${script} is missing (the dyn wasm build belongs to src/dyn's owner)`);
  process.exit(1);
}
if (existsSync(out) && process.argv[2] !== '--force') {
  const built = statSync(out).mtimeMs;
  if (inputs.every((f) => statSync(f).mtimeMs <= built)) {
    console.log(`viewer wasm: ${out} is up to date`);
    process.exit(0);
  }
}
mkdirSync(outDir, { recursive: true });
try {
  // build.sh writes to a temp name and renames, so a failed build never leaves half a module.
  execFileSync('sh', [script, outDir], { stdio: 'inherit' });
} catch {
  console.error('viewer wasm: web/wasm/dyn/build.sh failed (clang-14 with wasi-libc and '
    + 'libclang-rt-14-dev-wasm32 installed? see scripts/setup.sh)');
  process.exit(1);
}
console.log(`viewer wasm: wrote ${out} (${statSync(out).size} bytes)`);
