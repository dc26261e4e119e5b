#!/usr/bin/env node
'use strict';

// Builds the calibration ladder: create-rust-ladder's own template rendered
// for a function named `identity` (identity.js, ported in port.rs) into
// bench/calibration/ladder/, then built by the ladder's own build.js, so the
// boundaries bench/lib/calibrate.js measures are the ones a team's port gets;
// and beside it the same port as a Rust service on a Unix socket (rpc.rs).
// What differs from a team's ladder is the port, its corpus and the bounds (an
// input may be up to 1 MiB, MAX_INPUT_BYTES, 4096 in the template; so may an
// output); not a line of the bindings.
//
// `make build-calibration` runs it. Cargo builds into $CARGO_TARGET_DIR, else
// the repository's target/, where the workspace's build has already compiled
// the same napi and wasm-bindgen crates; the CLI and the C-ABI library are
// then copied to the ladder's target/release/, where its js/tiers.js looks
// and tier-bench's package ships them from. A file whose text is unchanged is
// not rewritten: an unchanged ladder costs cargo nothing.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const HERE = __dirname;
const ROOT = path.resolve(HERE, '../..');
const LADDER = path.join(HERE, 'ladder');
const { render } = require(path.join(ROOT, 'scaffold/lib/render'));
const { spellings } = require(path.join(ROOT, 'scaffold/lib/names'));
const { MAX_INPUT_BYTES } = require('./identity');
const { platformOf } = require('../lib/platform');

const NAME = 'identity';
const names = spellings(NAME);
// The JS reference requires the function by its path from ladder/js/, as create-rust-ladder writes it.
const FROM_REQUIRE = `'${path.relative(path.join(LADDER, 'js'), path.join(HERE, 'identity.js'))}'`;
const PORT_START = '/// The port of the JavaScript function.';
const PORT_END = '/// The same for raw bytes';

// The ladder's own parity test (test/parity.test.js) holds every tier to identity.js over these,
// in process and over HTTP: an input over the bound would not fit in a URL.
const CORPUS = {
  valid: ['0\n', '3\n', '5\nfiller', `1500\n${'x'.repeat(40)}`, { repeat: '4096\n', times: 400 }],
  invalid: {
    empty: '',
    'no length': 'xxxx',
    'no newline': '12',
    'a length too long': '12345678\n',
    'an output over the limit': '1048577\n',
  },
};

/** `text` with `from` replaced by `to` once; throws when the template no longer has `from`. */
function replaceOnce(text, from, to, file) {
  if (!text.includes(from)) throw new Error(`${file}: the template no longer has ${JSON.stringify(from)}`);
  return text.replace(from, to);
}

/** The ladder's files: the template rendered, the port spliced in, the bounds raised. */
function ladderFiles() {
  const files = render('ladder', { ...names, fromRequire: FROM_REQUIRE, fromExport: NAME });
  // Inside the package, a .gitignore would keep npm from packing the built artifacts.
  files.delete('.gitignore');
  const lib = 'core/src/lib.rs';
  const generated = files.get(lib);
  const start = generated.indexOf(PORT_START);
  const end = generated.indexOf(PORT_END);
  if (start < 0 || end < start) throw new Error(`${lib}: the template no longer marks port()`);
  const port = fs.readFileSync(path.join(HERE, 'port.rs'), 'utf8');
  let core = `${generated.slice(0, start)}${port.slice(port.indexOf(PORT_START))}\n${generated.slice(end)}`;
  core = replaceOnce(core, 'MAX_INPUT_BYTES: usize = 4096;', `MAX_INPUT_BYTES: usize = ${MAX_INPUT_BYTES};`, lib);
  files.set(lib, core);
  const reference = 'js/reference.js';
  const bound = `MAX_INPUT_BYTES = ${MAX_INPUT_BYTES};`;
  files.set(reference, replaceOnce(files.get(reference), 'MAX_INPUT_BYTES = 4096;', bound, reference));
  files.set('corpus.json', `${JSON.stringify(CORPUS, null, 2)}\n`);
  return files;
}

/** Formats the Rust files as create-rust-ladder does (cargo fmt), in a scratch copy. */
function formatted(files) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'calibration-'));
  try {
    const rust = [...files.keys()].filter((f) => f.endsWith('.rs'));
    for (const file of rust) {
      fs.mkdirSync(path.dirname(path.join(scratch, file)), { recursive: true });
      fs.writeFileSync(path.join(scratch, file), files.get(file));
    }
    execFileSync('rustfmt', ['--edition', '2021', ...rust], { cwd: scratch, stdio: 'inherit' });
    for (const file of rust) files.set(file, fs.readFileSync(path.join(scratch, file), 'utf8'));
    return files;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Writes `data` to `file` unless it holds it already: cargo's fingerprints see mtimes. */
function writeIfChanged(file, data, mode) {
  if (fs.existsSync(file) && fs.readFileSync(file).equals(Buffer.from(data))) return false;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data, { mode });
  if (mode) fs.chmodSync(file, mode);
  return true;
}

function main() {
  const started = Date.now();
  for (const [file, text] of formatted(ladderFiles())) {
    writeIfChanged(path.join(LADDER, file), text, /(server|build)\.js$/.test(file) ? 0o755 : 0o644);
  }
  const targetDir = path.resolve(process.env.CARGO_TARGET_DIR ?? path.join(ROOT, 'target'));
  execFileSync(process.execPath, [path.join(LADDER, 'build.js')], {
    cwd: LADDER,
    stdio: 'inherit',
    env: { ...process.env, CARGO_TARGET_DIR: targetDir },
  });
  // js/tiers.js looks in the ladder's own target/ when CARGO_TARGET_DIR is unset, as in tier-bench's package.
  const { LIBRARY_FILE } = require(path.join(LADDER, 'js/ffi.js'));
  for (const [file, mode] of [
    [`${names.snake}_cli`, 0o755],
    [LIBRARY_FILE, 0o755],
  ]) {
    const built = path.join(targetDir, 'release', file);
    const shipped = path.join(LADDER, 'target/release', file);
    if (path.resolve(built) !== path.resolve(shipped)) writeIfChanged(shipped, fs.readFileSync(built), mode);
  }
  // The hop (rpc.rs): the standard library only, so rustc alone builds it, beside the CLI.
  const rpc = path.join(targetDir, 'release/identity_rpc');
  const rustc = ['--edition', '2021', '-C', 'opt-level=3', '-C', 'strip=symbols'];
  execFileSync('rustc', [...rustc, '-o', rpc, path.join(HERE, 'rpc.rs')], { stdio: 'inherit' });
  const shippedRpc = path.join(LADDER, 'target/release/identity_rpc');
  if (path.resolve(rpc) !== path.resolve(shippedRpc)) writeIfChanged(shippedRpc, fs.readFileSync(rpc), 0o755);
  // wasm-pack's pkg/.gitignore ('*') would keep npm from packing the module.
  fs.rmSync(path.join(LADDER, 'wasm/pkg/.gitignore'), { force: true });
  // Where the native artifacts run: the calibration skips them on any other platform.
  writeIfChanged(path.join(LADDER, 'prebuilt.json'), `${JSON.stringify(platformOf())}\n`, 0o644);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.error(`build-calibration: ${path.relative(ROOT, LADDER)} built in ${seconds} s`);
}

if (require.main === module) {
  try {
    main();
  } catch (err) {
    console.error(`build-calibration: ${err.message}`);
    process.exitCode = 1;
  }
}

module.exports = { ladderFiles, LADDER };
