// `sinew convert` round trip of every shared model, checked by the Khronos glTF-Validator:
// 0 errors where the input had 0 (CesiumMan/RobotExpressive carry errors: then no new error
// codes), JSON equal to the input's apart from buffer layout and the skin skeletons sinew
// repairs on reading (a skeleton that is not a common root of its joints), every bufferView's bytes
// equal; and the files sinew writes from edits and from a model pass the validator. The
// shared models part is skipped, saying so, when ../shared/models is absent.
import validator from 'gltf-validator';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const models = process.env.SINEW_MODELS || path.resolve('../shared/models');
const bin = path.join(process.env.SINEW_BIN || 'build/bin', 'sinew');
const haveModels = fs.existsSync(models);
if (!haveModels) console.log(`note: ${models} is absent: skipping the shared models' round trip`);

function parseFile(bytes) {
  // Returns { json, buffers: [Uint8Array] } for a GLB or .gltf (data URIs / files).
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length >= 12 && dv.getUint32(0, true) === 0x46546c67) {
    const jlen = dv.getUint32(12, true);
    const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jlen)));
    let binChunk = null;
    if (20 + jlen + 8 <= bytes.length) {
      const blen = dv.getUint32(20 + jlen, true);
      binChunk = bytes.subarray(28 + jlen, 28 + jlen + blen);
    }
    return { json, binChunk };
  }
  return { json: JSON.parse(new TextDecoder().decode(bytes)), binChunk: null };
}

function bufferBytes(parsed, dir) {
  return (parsed.json.buffers || []).map((b, i) => {
    if (b.uri === undefined) return parsed.binChunk;
    if (b.uri.startsWith('data:')) return Buffer.from(b.uri.slice(b.uri.indexOf(',') + 1), 'base64');
    return fs.readFileSync(path.join(dir, decodeURIComponent(b.uri)));
  });
}

function viewBytes(parsed, dir) {
  const bufs = bufferBytes(parsed, dir);
  return (parsed.json.bufferViews || []).map((v) =>
    Buffer.from(bufs[v.buffer].subarray(v.byteOffset || 0, (v.byteOffset || 0) + v.byteLength)));
}

function stripLayout(json) {
  const j = structuredClone(json);
  delete j.buffers;
  for (const v of j.bufferViews || []) { delete v.buffer; delete v.byteOffset; }
  return j;
}

// The one change sinew makes on reading (src/io/repair.c): a skin whose skeleton is not a
// common root of its joints gets their closest common root, or none when they have none.
function repairSkeletons(json) {
  const j = structuredClone(json);
  const parent = {};
  (j.nodes || []).forEach((n, i) => (n.children || []).forEach((c) => { parent[c] = i; }));
  const up = (i) => { const a = []; for (let k = i; k !== undefined; k = parent[k]) a.push(k); return a; };
  for (const skin of j.skins || []) {
    if (skin.skeleton === undefined || !skin.joints || !skin.joints.length) continue;
    const paths = skin.joints.map(up);
    if (paths.every((a) => a.includes(skin.skeleton))) continue;
    const common = paths[0].find((k) => paths.every((a) => a.includes(k)));
    if (common === undefined) delete skin.skeleton; else skin.skeleton = common;
  }
  return j;
}

function canonical(x) {
  if (Array.isArray(x)) return x.map(canonical);
  if (x && typeof x === 'object') {
    const o = {};
    for (const k of Object.keys(x).sort()) o[k] = canonical(x[k]);
    return o;
  }
  return x;
}

async function validate(bytes, file) {
  const dir = path.dirname(file);
  const report = await validator.validateBytes(new Uint8Array(bytes), {
    uri: path.basename(file),
    maxIssues: 100000,
    externalResourceFunction: (uri) =>
      new Promise((resolve, reject) => {
        try { resolve(new Uint8Array(fs.readFileSync(path.join(dir, decodeURIComponent(uri))))); }
        catch (e) { reject(e.toString()); }
      }),
  });
  const codes = new Set(report.issues.messages.filter((m) => m.severity === 0).map((m) => m.code));
  return { errors: report.issues.numErrors, codes };
}

const files = [];
for (const sub of haveModels ? ['', 'notail'] : []) {
  const dir = path.join(models, sub);
  if (!fs.existsSync(dir)) continue;
  for (const f of fs.readdirSync(dir).sort())
    if (/\.(glb|gltf)$/.test(f)) files.push(path.join(dir, f));
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sinew-convert-'));
let failures = 0;
const fail = (msg) => { console.log(`FAIL ${msg}`); failures++; };

for (const file of files) {
  for (const ext of ['glb', 'gltf']) {
    if (ext === 'gltf' && !/SimpleSkin|RiggedSimple|Fox\.glb$/.test(file)) continue;
    const name = path.relative(models, file).replace(/\//g, '_');
    const out = path.join(tmp, `${name}.${ext}`);
    const before = fs.readFileSync(file);
    try {
      execFileSync(bin, ['convert', file, out], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (e) {
      fail(`${name}: sinew convert exited ${e.status}: ${e.stderr}`);
      continue;
    }
    if (!before.equals(fs.readFileSync(file))) fail(`${name}: the input was modified`);
    const after = fs.readFileSync(out);
    const vin = await validate(before, file);
    const vout = await validate(after, out);
    const newCodes = [...vout.codes].filter((c) => !vin.codes.has(c));
    if (vin.errors === 0 && vout.errors !== 0) fail(`${name} -> ${ext}: ${vout.errors} validator errors (${[...vout.codes]})`);
    if (newCodes.length) fail(`${name} -> ${ext}: new validator error codes ${newCodes}`);
    const pin = parseFile(before), pout = parseFile(after);
    const a = JSON.stringify(canonical(stripLayout(repairSkeletons(pin.json))));
    const b = JSON.stringify(canonical(stripLayout(pout.json)));
    if (a !== b) fail(`${name} -> ${ext}: JSON differs apart from buffer layout`);
    if ((pout.json.buffers || []).length > 1) fail(`${name} -> ${ext}: more than one buffer`);
    const va = viewBytes(pin, path.dirname(file)), vb = viewBytes(pout, tmp);
    let same = va.length === vb.length;
    for (let i = 0; same && i < va.length; i++) same = va[i].equals(vb[i]);
    if (!same) fail(`${name} -> ${ext}: bufferView bytes differ`);
    // Same input, same bytes.
    const again = path.join(tmp, `again.${ext}`);
    execFileSync(bin, ['convert', file, again]);
    if (!after.equals(fs.readFileSync(again))) fail(`${name} -> ${ext}: output is not deterministic`);
    console.log(`ok ${name} -> ${ext}: validator errors ${vin.errors} -> ${vout.errors}, ` +
                `${(pin.json.bufferViews || []).length} views`);
  }
}
// Documents sinew makes itself (edits: new node, joint, 8 influences, CUBICSPLINE and STEP
// channels, a note; and sinew_document_from_model) must be valid glTF too.
const maker = path.join(process.env.SINEW_BIN || 'build/bin', 'fuzz_make_corpus');
const made = path.join(tmp, 'made');
fs.mkdirSync(made);
execFileSync(maker, [made]);
for (const f of ['base.glb', 'edited.glb', 'from_model.glb']) {
  const file = path.join(made, f);
  const v = await validate(fs.readFileSync(file), file);
  if (v.errors) fail(`${f} written by sinew: ${v.errors} validator errors (${[...v.codes]})`);
  else console.log(`ok ${f} written by sinew: 0 validator errors`);
}
fs.rmSync(tmp, { recursive: true, force: true });
if (failures) { console.log(`${failures} failure(s)`); process.exit(1); }
console.log(`convert round trip: ${files.length} models ok`);
