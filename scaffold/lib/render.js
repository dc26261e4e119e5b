'use strict';

// Renders a template directory. Each template is a real project that builds,
// formats and lints where it sits, for a function named `ladder-example`:
// rendering renames it, as napi-rs's CLI renames its package template.
// Every spelling of the placeholder (ladder-example, ladder_example,
// ladderExample, LadderExample) in file names and contents becomes the same
// spelling of the team's name; the ladder's reference then requires the
// team's function instead of the service template's; `_gitignore` becomes
// `.gitignore` (npm leaves `.gitignore` files out of a package). Pure:
// returns what to write. What the template's own `_gitignore` names (its build
// output, should it have been built where it sits) is not part of it.
const fs = require('node:fs');
const path = require('node:path');
const { spellings } = require('./names');

const TEMPLATES = path.join(__dirname, '../template');
const PLACEHOLDER = spellings('ladder-example');
const KEYS = ['name', 'snake', 'camel', 'Pascal'];
const SPELLINGS = new RegExp(KEYS.map((key) => PLACEHOLDER[key]).join('|'), 'g');
// js/reference.js's line that requires the JavaScript original.
const REFERENCE = 'js/reference.js';
const ORIGINAL = /^const \{ [\w$]+: original \} = require\('[^'\n]*'\);$/m;

/** `text` with every placeholder spelling replaced, in one pass (a team's name may contain the placeholder's). */
function rename(text, values) {
  const byPlaceholder = new Map(KEYS.map((key) => [PLACEHOLDER[key], values[key]]));
  return text.replace(SPELLINGS, (spelling) => byPlaceholder.get(spelling));
}

/** Whether a template-relative path is one its `_gitignore` names: `/dir/`, `/file`, `name/`, `*` within a name. */
function ignoredBy(gitignore) {
  const patterns = gitignore
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const glob = line.replace(/^\//, '').replace(/\/$/, '');
      const body = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*');
      // As git reads it: a pattern with no slash but a trailing one matches at any depth.
      const anchored = line.startsWith('/') || glob.includes('/');
      return new RegExp(`${anchored ? '^' : '(^|/)'}${body}${line.endsWith('/') ? '(/|$)' : '$'}`);
    });
  return (relative) => patterns.some((pattern) => pattern.test(relative));
}

/** Template-relative paths of the files under `dir`, but what `ignored` names. */
function* templateFiles(dir, ignored, prefix = '') {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (ignored(relative)) continue;
    if (entry.isDirectory()) yield* templateFiles(path.join(dir, entry.name), ignored, relative);
    else yield relative;
  }
}

/** Map of relative path -> contents of template `which` ("ladder" or "service", under `templates`) for `values`. */
function render(which, values, templates = TEMPLATES) {
  for (const key of KEYS) if (typeof values[key] !== 'string') throw new Error(`template: no value for ${key}`);
  const root = path.join(templates, which);
  const gitignore = path.join(root, '_gitignore');
  const ignored = ignoredBy(fs.existsSync(gitignore) ? fs.readFileSync(gitignore, 'utf8') : '');
  const files = new Map();
  for (const relative of templateFiles(root, ignored)) {
    const name = relative === '_gitignore' ? '.gitignore' : rename(relative, values);
    files.set(name, rename(fs.readFileSync(path.join(root, relative), 'utf8'), values));
  }
  if (which === 'ladder') files.set(REFERENCE, withOriginal(files.get(REFERENCE), values));
  if (files.has('Cargo.lock')) files.set('Cargo.lock', inCargoOrder(files.get('Cargo.lock')));
  return files;
}

/**
 * A renamed Cargo.lock in the order cargo writes (packages by name, then
 * version; each list of dependencies sorted), so that the first build of a
 * generated ladder leaves it as it is.
 */
function inCargoOrder(lock) {
  const [head, ...packages] = lock.trimEnd().split(/\n\n(?=\[\[package\]\])/);
  const field = (block, key) => new RegExp(`^${key} = "([^"]*)"`, 'm').exec(block)?.[1] ?? '';
  const version = (block) => field(block, 'version').split('.').map(Number);
  const byVersion = (a, b) => version(a).reduce((order, part, i) => order || part - (version(b)[i] ?? 0), 0);
  const sorted = packages
    .map((block) =>
      block.replace(/^(dependencies = \[\n)([\s\S]*?)(^\])/m, (_, open, list, close) => {
        const entries = list.split('\n').filter(Boolean).sort();
        return `${open}${entries.join('\n')}\n${close}`;
      }),
    )
    .sort((a, b) =>
      field(a, 'name') < field(b, 'name') ? -1 : field(a, 'name') > field(b, 'name') ? 1 : byVersion(a, b),
    );
  return `${[head, ...sorted].join('\n\n')}\n`;
}

/** The reference's text requiring `values.fromExport` from `values.fromRequire` (a JS string literal). */
function withOriginal(text, { fromRequire, fromExport }) {
  if (!fromRequire || !fromExport) throw new Error('template: the ladder needs fromRequire and fromExport');
  if (!ORIGINAL.test(text)) throw new Error(`template: ${REFERENCE} no longer requires the original`);
  return text.replace(ORIGINAL, () => `const { ${fromExport}: original } = require(${fromRequire});`);
}

module.exports = { render };
