'use strict';

// What the target directory is, and what the ladder adds to it.
const fs = require('node:fs');
const path = require('node:path');

const { version: VERSION } = require('../package.json');

// What the generated service needs; a range a project already has is kept.
const NEEDS = {
  dependencies: { express: '^5.1.0', 'tier-adapters': `^${VERSION}` },
  devDependencies: { 'tier-bench': `^${VERSION}`, '@napi-rs/cli': '^3.0.0' },
};

/** "empty", "npm" (has a package.json) or a one-line reason it is neither. */
function kindOf(dir) {
  if (!fs.existsSync(dir)) return 'empty';
  if (!fs.statSync(dir).isDirectory()) return `${dir} is not a directory`;
  if (fs.existsSync(path.join(dir, 'package.json'))) return 'npm';
  const entries = fs.readdirSync(dir).filter((e) => e !== '.git');
  return entries.length ? `${dir} is neither empty nor an npm project (no package.json)` : 'empty';
}

/** `--from file.js#name`: the module (relative to `dir`) and the export; throws a one-line reason. */
function parseFrom(from, dir) {
  const match = /^(.+?)(?:#([A-Za-z_$][\w$]*))?$/.exec(from);
  const [, file, exportName] = match;
  if (!exportName) throw new Error(`--from ${from}: say which export, as in src/render.js#render`);
  const absolute = path.resolve(dir, file);
  if (!fs.existsSync(absolute)) throw new Error(`--from ${from}: ${file} not found in ${dir}`);
  if (!fs.readFileSync(absolute, 'utf8').includes(exportName))
    throw new Error(`--from ${from}: ${file} never mentions ${exportName}`);
  return { file: path.relative(dir, absolute), exportName };
}

/**
 * The scripts a function's ladder adds, by name (`names`: lib/names.js;
 * `source`: the function, { file, exportName }). `NAME:profile` comes first:
 * what a port can buy, measured before anyone writes Rust.
 */
function scriptsFor({ name, snake }, source) {
  const dir = `rust/${name}`;
  return {
    [`${name}:profile`]:
      `tier-bench-profile --config ${dir}/bench.config.js --tier js` +
      ` --function ${source.file}#${source.exportName} --out ${dir}/profile-out`,
    [`${name}:build`]: `node ${dir}/build.js`,
    // The addon's crate has no tests to link: napi symbols resolve only inside Node.
    [`${name}:test`]:
      `cargo test --manifest-path ${dir}/Cargo.toml -p ${snake}_core -p ${snake}_cli -p ${snake}_ffi` +
      ` && node --test ${dir}/test/parity.test.js`,
    [`${name}:bench`]: `tier-bench --config ${dir}/bench.config.js --workers 1 --out ${dir}/bench-out`,
  };
}

/** What package.json gains: { section: { key: value } } for every key it lacks; throws if a script name is taken. */
function additions(pkg, names, source) {
  const has = (dep) => Boolean(pkg.dependencies?.[dep] ?? pkg.devDependencies?.[dep]);
  const out = {};
  for (const [section, deps] of Object.entries(NEEDS)) {
    const missing = Object.entries(deps).filter(([dep]) => !has(dep));
    if (missing.length) out[section] = Object.fromEntries(missing);
  }
  const scripts = scriptsFor(names, source);
  const taken = Object.keys(scripts).filter((s) => pkg.scripts && s in pkg.scripts);
  if (taken.length)
    throw new Error(`package.json has script${taken.length > 1 ? 's' : ''} ${taken.join(', ')} already`);
  out.scripts = scripts;
  return out;
}

/** package.json's text with `adds` merged in, in its own indentation. */
function withAdditions(text, adds) {
  const pkg = JSON.parse(text);
  for (const [section, entries] of Object.entries(adds)) pkg[section] = { ...pkg[section], ...entries };
  const indent = /^[ \t]+(?=")/m.exec(text)?.[0] ?? '  ';
  return `${JSON.stringify(pkg, null, indent)}\n`;
}

/** The lines that show `adds` before they are written. */
function describe(adds) {
  return Object.entries(adds).flatMap(([section, entries]) => [
    `  ${section}:`,
    ...Object.entries(entries).map(([k, v]) => `    "${k}": "${v}"`),
  ]);
}

module.exports = { kindOf, parseFrom, additions, withAdditions, describe, scriptsFor, NEEDS, VERSION };
