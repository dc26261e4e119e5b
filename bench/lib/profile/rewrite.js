'use strict';

// The source rewrite hook.js applies to the module that declares the
// function under profile. Pure: tested on its own.

// The global the rewritten module reaches the wrapper through (hook.js sets it).
const KEY_NAME = 'tier-bench.profile';

/** Whether `source` declares `name` as a function or a variable (a binding the rewrite can reassign). */
function binds(source, name) {
  const declared = `(^|[\\s;}])(?:async\\s+)?function\\s*\\*?\\s*${name}\\s*\\(|\\b(?:const|let|var)\\s+${name}\\s*=`;
  return new RegExp(declared, 'm').test(source);
}

/**
 * The target module's source with the function wrapped where it is bound:
 * a `function NAME` or `let`/`var NAME` is reassigned after the module runs
 * (a `const` becomes a `let` first), so its callers inside the module and an
 * ES module's importers (live bindings) get the wrapper; a CommonJS export
 * that is not a binding of its own is wrapped on `module.exports`.
 */
function rewrite(source, name, format) {
  const hook = `globalThis[Symbol.for('${KEY_NAME}')]`;
  const commonjs = format === 'commonjs';
  if (binds(source, name)) {
    const body = source.replace(new RegExp(`\\bconst(\\s+${name}\\s*=)`), 'let$1');
    const exported = commonjs
      ? ` if (module.exports.${name} === __tierBenchOriginal) module.exports.${name} = ${name};`
      : '';
    return `${body}\n;{ const __tierBenchOriginal = ${name}; ${name} = ${hook}.wrap(${name});${exported} }\n`;
  }
  if (commonjs) return `${source}\n;module.exports.${name} = ${hook}.wrap(module.exports.${name});\n`;
  return null;
}

module.exports = { rewrite, binds, KEY_NAME };
