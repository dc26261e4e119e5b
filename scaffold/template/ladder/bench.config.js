'use strict';

// tier-bench's view of this service: every tier's server and the requests
// (`npm run ladder-example:bench`; the options: `npx tier-bench --help`).
const path = require('node:path');
const { defineConfig } = require('tier-bench');
const corpus = require('./js/corpus');
const { tierNames, unsupported } = require('./js/tiers');

const inputPath = (input) => `/ladder-example?input=${encodeURIComponent(input)}`;

module.exports = defineConfig({
  title: 'ladder-example tiers',
  baseline: 'js',
  // Each tier this Node can serve (ffi needs node:ffi).
  tiers: tierNames
    .filter((name) => !unsupported(name))
    .map((name) => ({
      name,
      command: ({ node }) => [node, path.join(__dirname, 'js/server.js'), '--tier', name, '--port', '0'],
    })),
  soakTiers: ['cli-pool', 'napi-async'],
  // `npm run ladder-example:profile` writes it: the report shows each tier's predicted range beside its ratios.
  prediction: 'profile-out/profile.json',
  notes: { workers: 'js/server.js is one process: it takes no worker count', body: "the function's output" },
  requests: {
    description: 'the valid inputs of corpus.json',
    paths: corpus.valid.map(inputPath),
  },
});
