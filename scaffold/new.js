#!/usr/bin/env node
'use strict';

// node scaffold/new.js NAME: a new hot function on the whole ladder, in
// functions/NAME: core crate, CLI, Wasm and napi bindings, JS reference,
// tiers on tier-adapters, a parity test and a benchmark configuration, all
// building and passing as generated. Its crates join the Cargo workspace
// (as `cargo new` does inside one).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const TEMPLATE = path.join(__dirname, 'template');
const CRATES = ['core', 'cli', 'wasm', 'napi'];
const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** The spellings of a kebab-case name the templates use. */
function spellings(name) {
  const words = name.split('-');
  const cap = (w) => w[0].toUpperCase() + w.slice(1);
  return { name, snake: words.join('_'), camel: words[0] + words.slice(1).map(cap).join(''), Pascal: words.map(cap).join('') };
}

function render(text, names) {
  return text.replace(/\{\{(name|snake|camel|Pascal)\}\}/g, (_, key) => names[key]);
}

function copyTree(from, to, names) {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, render(entry.name, names));
    if (entry.isDirectory()) copyTree(source, target, names);
    else fs.writeFileSync(target, render(fs.readFileSync(source, 'utf8'), names));
  }
}

/** Adds the function's crates to the workspace's `members`. */
function joinWorkspace(dir) {
  const file = path.join(ROOT, 'Cargo.toml');
  const text = fs.readFileSync(file, 'utf8');
  const members = /^members = \[\n([\s\S]*?)^\]/m.exec(text);
  if (!members) throw new Error(`${file}: no multi-line "members = [ ... ]" to add to`);
  const entries = CRATES.map((c) => `    "${path.relative(ROOT, path.join(dir, c))}",\n`).join('');
  const end = members.index + members[0].length - 1;
  fs.writeFileSync(file, text.slice(0, end) + entries + text.slice(end));
}

function scaffold(name, { root = ROOT } = {}) {
  if (!NAME.test(name)) throw new Error(`"${name}" is not a kebab-case name (e.g. word-count)`);
  const names = spellings(name);
  const dir = path.join(root, 'functions', name);
  if (fs.existsSync(dir)) throw new Error(`${path.relative(ROOT, dir)} exists already`);
  const taken = CRATES.map((c) => `${names.snake}_${c}`).filter((crate) => fs.existsSync(path.join(ROOT, crate)));
  if (taken.length) throw new Error(`crate names taken: ${taken.join(', ')}`);
  copyTree(TEMPLATE, dir, names);
  joinWorkspace(dir);
  // Formatted by the project's own rustfmt: clean under `cargo fmt --check` whatever the name's length.
  execFileSync('cargo', ['fmt', ...CRATES.flatMap((c) => ['-p', `${names.snake}_${c}`])], { cwd: ROOT, stdio: 'inherit' });
  return dir;
}

function main() {
  const name = process.argv[2];
  if (!name || name.startsWith('-')) {
    console.error('usage: node scaffold/new.js NAME   (kebab-case, e.g. word-count)');
    process.exit(2);
  }
  let dir;
  try {
    dir = path.relative(ROOT, scaffold(name));
  } catch (err) {
    console.error(`scaffold: ${err.message}`);
    process.exit(1);
  }
  console.log(`scaffold: ${dir} created. Next, from the repository root:

  npm run build --prefix ${dir}   # CLI, addon, Wasm
  npm test --prefix ${dir}        # Rust unit tests, then parity against js/reference.js
  npm run bench --prefix ${dir}   # report in ${dir}/bench-out/report.md

Then port your function: core/src/lib.rs and js/reference.js (see ${dir}/README.md).`);
}

if (require.main === module) main();

module.exports = { scaffold, spellings };
