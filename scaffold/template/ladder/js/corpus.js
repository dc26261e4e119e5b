'use strict';

// corpus.json's inputs. An entry is a string, `{ "repeat": s, "times": n }`
// or `{ "file": path }` (relative to corpus.json: a sample file of yours).
const fs = require('node:fs');
const path = require('node:path');

const FILE = path.join(__dirname, '../corpus.json');
const corpus = JSON.parse(fs.readFileSync(FILE, 'utf8'));

function expand(entry) {
  if (typeof entry === 'string') return entry;
  if (entry.file) return fs.readFileSync(path.resolve(path.dirname(FILE), entry.file), 'utf8');
  return entry.repeat.repeat(entry.times);
}

/** Valid inputs, and [label, input] pairs the function must refuse. */
module.exports = {
  valid: corpus.valid.map(expand),
  invalid: Object.entries(corpus.invalid).map(([label, entry]) => [label, expand(entry)]),
};
