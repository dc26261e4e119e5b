'use strict';

// A V8 CPU profile (.cpuprofile) as shares of the main thread's busy time:
// each function's self and inclusive share, by file and line, with Node's
// internals, V8's own work and each package under node_modules grouped.
const path = require('node:path');
const { fileURLToPath } = require('node:url');

const V8_OWN = { '(program)': 'V8: (program)', '(garbage collector)': 'V8: garbage collector', '(root)': null };

/** What a frame belongs to: { group, user, file, line, name }; null for (idle) and (root). */
function frameOf({ functionName, url, lineNumber }, root) {
  if (functionName === '(idle)' || functionName === '(root)') return null;
  if (functionName in V8_OWN) return { group: V8_OWN[functionName], user: false };
  if (!url) return { group: 'native (V8 builtins, addons)', user: false };
  if (url.startsWith('node:')) return { group: 'node internals', user: false };
  const file = url.startsWith('file:') ? fileURLToPath(url) : url;
  const modules = file.lastIndexOf(`${path.sep}node_modules${path.sep}`);
  if (modules !== -1) {
    const parts = file.slice(modules + 14).split(path.sep);
    return { group: `node_modules/${parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]}`, user: false };
  }
  const relative = path.relative(root, file);
  return { group: relative, user: true, file: relative, line: lineNumber + 1, name: functionName || '(anonymous)' };
}

/**
 * Shares of the busy samples (idle left out), each in [0, 1]: `groups` (a
 * package, Node's internals, V8, or a file of the service's own) and
 * `functions` (the service's own, by file and line), self and inclusive
 * (a function counted once per sample however deep it recurses).
 */
function attribute(profile, { root = process.cwd(), top = 15 } = {}) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const frames = new Map(profile.nodes.map((n) => [n.id, frameOf(n.callFrame, root)]));
  const stackCache = new Map();
  // The frames of a node's stack, leaf first; shared prefixes cached.
  const stackOf = (id) => {
    if (stackCache.has(id)) return stackCache.get(id);
    const up = parent.has(id) ? stackOf(parent.get(id)) : [];
    const stack = frames.get(id) ? [frames.get(id), ...up] : up;
    stackCache.set(id, stack);
    return stack;
  };
  const groups = new Map();
  const functions = new Map();
  const add = (map, key, init, field) => {
    const entry = map.get(key) ?? { ...init, self: 0, inclusive: 0 };
    entry[field]++;
    map.set(key, entry);
  };
  let busy = 0;
  for (const id of profile.samples) {
    const stack = stackOf(id);
    if (!stack.length || byId.get(id).callFrame.functionName === '(idle)') continue;
    busy++;
    const [leaf] = stack;
    add(groups, leaf.group, { group: leaf.group }, 'self');
    if (leaf.user) {
      const { file, line, name } = leaf;
      add(functions, `${file}:${line}:${name}`, { file, line, name }, 'self');
    }
    const seenGroups = new Set();
    const seenFunctions = new Set();
    for (const f of stack) {
      if (!seenGroups.has(f.group)) {
        seenGroups.add(f.group);
        add(groups, f.group, { group: f.group }, 'inclusive');
      }
      if (!f.user) continue;
      const key = `${f.file}:${f.line}:${f.name}`;
      if (seenFunctions.has(key)) continue;
      seenFunctions.add(key);
      add(functions, key, { file: f.file, line: f.line, name: f.name }, 'inclusive');
    }
  }
  const shares = (map) =>
    [...map.values()]
      .map((e) => ({ ...e, self: busy ? e.self / busy : 0, inclusive: busy ? e.inclusive / busy : 0 }))
      .sort((a, b) => b.inclusive - a.inclusive || b.self - a.self);
  return { samples: busy, groups: shares(groups).slice(0, top), functions: shares(functions).slice(0, top) };
}

module.exports = { attribute, frameOf };
