'use strict';

// A function's name (kebab-case) and the spellings the templates use.
const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** { name, snake, camel, Pascal } of a kebab-case name; throws for any other. */
function spellings(name) {
  if (!NAME.test(name)) throw new Error(`"${name}" is not a kebab-case name (e.g. csv-to-json)`);
  const words = name.split('-');
  const cap = (w) => w[0].toUpperCase() + w.slice(1);
  return { name, snake: words.join('_'), camel: words[0] + words.slice(1).map(cap).join(''), Pascal: words.map(cap).join('') };
}

module.exports = { spellings };
