'use strict';

// The benchmark's view of this function's service, for
// `node ../../bench/run.js --config functions/{{name}}/bench.config.js`.
const path = require('node:path');
const corpus = require('./corpus.json');
const { tierNames } = require('./js/tiers');

const inputPath = (input) => `/{{name}}?input=${encodeURIComponent(input)}`;
const SAMPLE = 'The quick brown fox jumps over the lazy dog, 0123456789 times! ';
/** Eight different ASCII inputs of exactly `length` bytes. */
const ofLength = (length) =>
  Array.from({ length: 8 }, (_, i) => SAMPLE.repeat(Math.ceil((length + 7 * i) / SAMPLE.length)).slice(7 * i, 7 * i + length)).map(inputPath);

module.exports = {
  title: '{{name}} tiers',
  baseline: 'js',
  tiers: tierNames.map((name) => ({
    name,
    command: ({ node }) => [node, path.join(__dirname, 'js/server.js'), '--tier', name, '--port', '0'],
  })),
  soakTiers: ['cli-pool', 'napi-async'],
  requests: {
    description: 'the valid inputs of corpus.json',
    paths: corpus.valid.filter((v) => typeof v === 'string').map(inputPath),
    lengths: [16, 256, 4096],
    ofLength,
  },
};
