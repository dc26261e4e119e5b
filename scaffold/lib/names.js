'use strict';

// A function's name (kebab-case) and the spellings the templates use.
const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

// Words the generated code cannot use as its identifiers: the snake_case
// spelling names Rust functions and modules, the camelCase one JavaScript
// functions. Rust: the strict and reserved keywords (2024 edition, `gen`
// and `try` included); JavaScript: the reserved words, those of strict mode,
// and the names strict mode forbids binding.
const RUST_KEYWORDS = new Set(
  `as async await break const continue crate dyn else enum extern false fn for if impl in
  let loop match mod move mut pub ref return self static struct super trait true type unsafe use where while
  abstract become box do final gen macro override priv try typeof unsized virtual yield`.split(/\s+/),
);
// Names the generated code binds itself: the napi binding's alias of the
// core's function (Rust), and what Node binds in every CommonJS module, where
// the example service declares the function (JavaScript).
const TEMPLATE_RUST_NAMES = new Set(['core_function']);
const TEMPLATE_JS_NAMES = new Set(['require', 'module', 'exports']);
const JS_RESERVED = new Set(
  `await break case catch class const continue debugger default delete do else enum export
  extends false finally for function if import in instanceof new null return super switch this throw true try
  typeof var void while with yield let static implements interface package private protected public
  arguments eval undefined NaN Infinity`.split(/\s+/),
);

/** { name, snake, camel, Pascal } of a kebab-case name; throws a one-line reason for any other. */
function spellings(name) {
  if (!NAME.test(name)) throw new Error(`"${name}" is not a kebab-case name (e.g. csv-to-json)`);
  const words = name.split('-');
  const cap = (w) => w[0].toUpperCase() + w.slice(1);
  const names = {
    name,
    snake: words.join('_'),
    camel: words[0] + words.slice(1).map(cap).join(''),
    Pascal: words.map(cap).join(''),
  };
  const taken = [
    RUST_KEYWORDS.has(names.snake) && `a Rust keyword (${names.snake})`,
    JS_RESERVED.has(names.camel) && `a JavaScript reserved word (${names.camel})`,
    TEMPLATE_RUST_NAMES.has(names.snake) && `a name the generated Rust uses itself (${names.snake})`,
    TEMPLATE_JS_NAMES.has(names.camel) && `a name every CommonJS module binds (${names.camel})`,
  ].filter(Boolean);
  if (taken.length) throw new Error(`"${name}" is ${taken.join(' and ')}: choose another name (e.g. ${name}-text)`);
  return names;
}

module.exports = { spellings, RUST_KEYWORDS, JS_RESERVED };
