#!/usr/bin/env node
'use strict';

// create-rust-ladder NAME [--from FILE#EXPORT] [--yes] [--format]
//
// In an npm project: rust/NAME/, the Rust ladder of the project's function
// FILE#EXPORT (a core crate with CLI, Wasm and napi bindings; the tiers on
// tier-adapters; a service; a parity test; a tier-bench configuration),
// touching none of the project's files; what package.json gains is shown
// first and written once agreed (--yes: without asking).
// In an empty directory: the same around a worked example, as a new service.
// Every file is written to a staging directory first and moved in at the
// end: a failure leaves the project as it was. No tool runs in the project;
// --format runs `cargo fmt` on the new crates in a scratch directory outside
// it (a project's rust-toolchain.toml or .cargo/config.toml is not read).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline/promises');
const { parseArgs } = require('node:util');
const { spellings } = require('./lib/names');
const { render } = require('./lib/render');
const { kindOf, parseFrom, additions, withAdditions, describe, scriptsFor, NEEDS } = require('./lib/project');

const USAGE = `usage: create-rust-ladder NAME [--from FILE#EXPORT] [--yes] [--format] [--dir DIR]
  NAME       the function's name, kebab-case (csv-to-json), not a Rust or JS keyword
  --from     in an npm project: the JavaScript function to port (src/csv.js#csvToJson)
  --yes      write package.json's additions without asking
  --format   lay the Rust out as rustfmt does for this name (runs cargo fmt,
             outside the project, before anything is written)
  --dir      the project (default: the current directory)`;

/** The files to write (relative to the project) and package.json's new text. */
function plan({ name, from, dir }) {
  const names = spellings(name);
  const kind = kindOf(dir);
  if (kind !== 'empty' && kind !== 'npm') throw new Error(kind);
  const ladder = `rust/${name}`;
  if (fs.existsSync(path.join(dir, ladder))) throw new Error(`${ladder} exists already`);
  const files = new Map();
  let pkgText;
  let source;
  if (kind === 'empty') {
    if (from) throw new Error('--from names a function of an existing npm project; this directory is empty');
    for (const [file, text] of render('service', names)) files.set(file, text);
    source = { file: `src/${name}.js`, exportName: names.camel };
    const pkg = {
      name,
      version: '0.1.0',
      private: true,
      scripts: { start: `node ${ladder}/js/server.js --port 3000` },
      dependencies: NEEDS.dependencies,
      devDependencies: NEEDS.devDependencies,
    };
    pkgText = withAdditions(`${JSON.stringify(pkg, null, 2)}\n`, { scripts: scriptsFor(names, source) });
  } else {
    if (!from) throw new Error('in an npm project, say which function to port: --from src/file.js#exportName');
    source = parseFrom(from, dir);
    pkgText = fs.readFileSync(path.join(dir, 'package.json'), 'utf8');
  }
  // js/reference.js requires the function by its path from rust/NAME/js/.
  // A JSON string is a JS string literal: any quote or backslash in the path is escaped.
  const fromRequire = JSON.stringify(path.relative(path.join(dir, ladder, 'js'), path.join(dir, source.file)));
  for (const [file, text] of render('ladder', { ...names, fromRequire, fromExport: source.exportName }))
    files.set(`${ladder}/${file}`, text);
  const adds = kind === 'empty' ? null : additions(JSON.parse(pkgText), names, source);
  return { names, kind, source, ladder, files, adds, pkgText: adds ? withAdditions(pkgText, adds) : pkgText };
}

async function agreed(adds, yes) {
  console.log(`create-rust-ladder: package.json gains:\n${describe(adds).join('\n')}`);
  if (yes) return true;
  if (!process.stdin.isTTY)
    throw new Error('package.json not changed and nothing written: run again with --yes to add the above');
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  const answer = await rl.question('Write them? [y/N] ');
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
}

const modeOf = (file) => (/(server|build)\.js$/.test(file) ? 0o755 : 0o644);

/** Writes `files` (relative path -> text) under `root`, never over a file that exists. */
function writeTree(root, files) {
  for (const [file, text] of files) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text, { flag: 'wx', mode: modeOf(file) });
  }
}

/**
 * `files` with the ladder's Rust laid out by `cargo fmt`, run in a scratch
 * directory under the system's temporary one: cargo and rustup read the
 * configuration of the directory they run in and its parents, and the
 * project's is not the initializer's to run.
 */
function formatted(files, ladder) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'create-rust-ladder-fmt-'));
  try {
    const prefix = `${ladder}/`;
    const crates = new Map(
      [...files].filter(([file]) => file.startsWith(prefix)).map(([file, text]) => [file.slice(prefix.length), text]),
    );
    writeTree(scratch, crates);
    const fmt = spawnSync('cargo', ['fmt', '--all'], { cwd: scratch, encoding: 'utf8' });
    if (fmt.status !== 0)
      throw new Error(`--format: cargo fmt failed: ${(fmt.error?.message ?? fmt.stderr).trim().split('\n')[0]}`);
    const out = new Map(files);
    for (const file of crates.keys())
      if (file.endsWith('.rs')) out.set(prefix + file, fs.readFileSync(path.join(scratch, file), 'utf8'));
    return out;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Writes the plan into `dir` at once: every file into a staging directory
 * inside `dir` (so that a rename moves it), then each new top-level entry
 * (rust/NAME, and in an empty directory the service's own files) renamed
 * into place, package.json last, replaced by a rename. Any failure takes
 * back what was moved: the project is left as it was.
 */
function write(dir, { files, pkgText, ladder }) {
  const staging = fs.mkdtempSync(path.join(dir, '.create-rust-ladder-'));
  const moved = [];
  try {
    writeTree(staging, files);
    fs.writeFileSync(path.join(staging, 'package.json'), pkgText);
    const entries = [ladder, ...fs.readdirSync(staging).filter((e) => e !== 'rust' && e !== 'package.json')];
    for (const entry of entries) {
      if (fs.existsSync(path.join(dir, entry))) throw new Error(`${entry} exists already`);
    }
    const parent = path.join(dir, path.dirname(ladder));
    if (!fs.existsSync(parent)) {
      fs.mkdirSync(parent);
      moved.push(path.dirname(ladder));
    }
    for (const entry of entries) {
      fs.renameSync(path.join(staging, entry), path.join(dir, entry));
      moved.push(entry);
    }
    fs.renameSync(path.join(staging, 'package.json'), path.join(dir, 'package.json'));
  } catch (err) {
    for (const entry of moved.reverse()) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
    throw err;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

async function main() {
  let values;
  let positionals;
  try {
    ({ values, positionals } = parseArgs({
      allowPositionals: true,
      options: {
        from: { type: 'string' },
        yes: { type: 'boolean', short: 'y', default: false },
        format: { type: 'boolean', default: false },
        dir: { type: 'string', default: '.' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    console.error(`create-rust-ladder: ${err.message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (positionals.length !== 1) {
    console.error(USAGE);
    return 2;
  }
  const dir = path.resolve(values.dir);
  let made;
  try {
    made = plan({ name: positionals[0], from: values.from, dir });
    if (values.format) made.files = formatted(made.files, made.ladder);
    if (made.adds && !(await agreed(made.adds, values.yes))) {
      console.error('create-rust-ladder: nothing written');
      return 1;
    }
    fs.mkdirSync(dir, { recursive: true });
    write(dir, made);
  } catch (err) {
    console.error(`create-rust-ladder: ${err.message}`);
    return 1;
  }
  const { name } = made.names;
  const layout = values.format
    ? ''
    : ' (the Rust as the template lays it out: cargo fmt, or --format, lays it out for this name)';
  const { file, exportName } = made.source;
  const core = `rust/${name}/core/src/lib.rs`;
  const last =
    made.kind === 'npm'
      ? `The parity test fails until port() in ${core} does what ${exportName} does.`
      : `Then make it yours: src/${name}.js and port() in ${core}.`;
  console.log(
    [
      `create-rust-ladder: rust/${name}/ made${layout}: the Rust port of ${file}#${exportName}, its tiers, ` +
        'a parity test and a benchmark.',
      `Next, in ${dir}:`,
      ...aligned([
        ['npm install', 'what package.json gained'],
        [
          `npm run ${name}:profile`,
          `first: what a port of ${exportName} can buy, and which tier to try (no Rust needed)`,
        ],
        [`npm run ${name}:build`, 'every binding: needs cargo, rustup target add wasm32-unknown-unknown, wasm-pack'],
        [`npm run ${name}:test`, `Rust unit tests, then every tier against ${exportName}`],
        [`npm run ${name}:bench`, `rust/${name}/bench-out/report.md`],
      ]),
      last,
    ].join('\n'),
  );
  return 0;
}

/** Commands with their comments in one column, whatever the name's length. */
function aligned(lines) {
  const width = Math.max(...lines.map(([command]) => command.length));
  return lines.map(([command, comment]) => `  ${command.padEnd(width)} # ${comment}`);
}

if (require.main === module) main().then((code) => (process.exitCode = code));

module.exports = { plan, write };
