#!/usr/bin/env node
'use strict';

// create-rust-ladder NAME [--from FILE#EXPORT] [--yes]
//
// In an npm project: rust/NAME/, the Rust ladder of the project's function
// FILE#EXPORT (a core crate with CLI, Wasm and napi bindings; the tiers on
// tier-adapters; a service; a parity test; a tier-bench configuration),
// touching none of the project's files; what package.json gains is shown
// first and written once agreed (--yes: without asking).
// In an empty directory: the same around a worked example, as a new service.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline/promises');
const { parseArgs } = require('node:util');
const { spellings } = require('./lib/names');
const { render } = require('./lib/render');
const { kindOf, parseFrom, additions, withAdditions, describe, scriptsFor, NEEDS } = require('./lib/project');

const USAGE = `usage: create-rust-ladder NAME [--from FILE#EXPORT] [--yes] [--dir DIR]
  NAME       the function's name, kebab-case (csv-to-json)
  --from     in an npm project: the JavaScript function to port (src/csv.js#csvToJson)
  --yes      write package.json's additions without asking
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
  const fromRequire = `'${path.relative(path.join(dir, ladder, 'js'), path.join(dir, source.file))}'`;
  for (const [file, text] of render('ladder', { ...names, fromRequire, fromExport: source.exportName })) files.set(`${ladder}/${file}`, text);
  const adds = kind === 'empty' ? null : additions(JSON.parse(pkgText), names, source);
  return { names, kind, source, files, adds, pkgText: adds ? withAdditions(pkgText, adds) : pkgText };
}

async function agreed(adds, yes) {
  console.log(`create-rust-ladder: package.json gains:\n${describe(adds).join('\n')}`);
  if (yes) return true;
  if (!process.stdin.isTTY) throw new Error('package.json not changed and nothing written: run again with --yes to add the above');
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  const answer = await rl.question('Write them? [y/N] ');
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
}

function write(dir, { files, pkgText }) {
  for (const [file, text] of files) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    // `wx`: never over a file that exists.
    fs.writeFileSync(path.join(dir, file), text, { flag: 'wx', mode: /(server|build)\.js$/.test(file) ? 0o755 : 0o644 });
  }
  fs.writeFileSync(path.join(dir, 'package.json'), pkgText);
}

async function main() {
  let values;
  let positionals;
  try {
    ({ values, positionals } = parseArgs({
      allowPositionals: true,
      options: { from: { type: 'string' }, yes: { type: 'boolean', short: 'y', default: false }, dir: { type: 'string', default: '.' }, help: { type: 'boolean', short: 'h' } },
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
    if (made.adds && !(await agreed(made.adds, values.yes))) {
      console.error('create-rust-ladder: nothing written');
      return 1;
    }
  } catch (err) {
    console.error(`create-rust-ladder: ${err.message}`);
    return 1;
  }
  fs.mkdirSync(dir, { recursive: true });
  write(dir, made);
  const { name } = made.names;
  const ladder = path.join(dir, 'rust', name);
  // rustfmt's own layout for the names rendered in (lines wrap with their length).
  const fmt = spawnSync('cargo', ['fmt', '--all'], { cwd: ladder, stdio: 'ignore' });
  const formatted = fmt.status === 0 ? '' : ' (not formatted: no cargo on PATH)';
  console.log(`create-rust-ladder: rust/${name}/ made${formatted}: the Rust port of ${made.source.file}#${made.source.exportName}, its tiers, a parity test and a benchmark.
Next, in ${dir}:
  npm install                 # what package.json gained
  npm run ${name}:profile # first: what a port of ${made.source.exportName} can buy, and which tier to try (no Rust needed)
  npm run ${name}:build   # every binding: needs cargo, rustup target add wasm32-unknown-unknown, wasm-pack
  npm run ${name}:test    # Rust unit tests, then every tier against ${made.source.exportName}
  npm run ${name}:bench   # rust/${name}/bench-out/report.md
${made.kind === 'npm' ? `The parity test fails until port() in rust/${name}/core/src/lib.rs does what ${made.source.exportName} does.` : `Then make it yours: src/${name}.js and port() in rust/${name}/core/src/lib.rs.`}`);
  return 0;
}

if (require.main === module) main().then((code) => (process.exitCode = code));

module.exports = { plan };
