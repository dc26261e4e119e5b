'use strict';

// docs/operations.md's "Connection storms", held to its committed report by
// value: each figure the guide quotes from bench/results/young-generation is
// read back, and each claim's direction checked against the same data. A new
// report that changes a figure or flips a claim fails here until the guide
// is rewritten.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { pairRatio } = require('../../bench/lib/report');

const ROOT = path.resolve(__dirname, '../..');
const report = JSON.parse(fs.readFileSync(path.join(ROOT, 'bench/results/young-generation/results.json'), 'utf8'));
const guide = fs.readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');

const row = (tier) => {
  const r = report.results.find((x) => x.tier === tier && x.workers === 1);
  assert.ok(r, `${tier} is in the committed report`);
  return r;
};
const pair = (tier, against, figure) => pairRatio(row(tier), row(against), figure);
const cpu = (tier, against) => pair(tier, against, 'serverCpuUsPerRequest');
const x = (value) => `${value.toFixed(3)}x`;
const range = (st) => `${st.low.toFixed(3)}-${st.high.toFixed(3)}`;
const section = () => {
  const start = guide.indexOf('**Connection storms.**');
  assert.ok(start >= 0, 'docs/operations.md has its "Connection storms" paragraph');
  return guide.slice(start, guide.indexOf('**The open-file limit.**', start)).replace(/\s+/g, ' ');
};

describe('docs/operations.md, "Connection storms", against bench/results/young-generation', () => {
  it('quotes the figures the committed report gives', () => {
    const text = section();
    const napi4 = cpu('napi-semi-4', 'napi');
    const js4 = cpu('js-semi-4', 'js');
    const napi8 = cpu('napi-semi-8', 'napi');
    const figures = [
      `\`napi\` costs ${x(napi4.estimate)} the CPU per request (${range(napi4)})`,
      `serves ${x(pair('napi-semi-4', 'napi', 'requestsPerSecond').estimate)} the requests a second`,
      `\`js\` ${x(js4.estimate)} (${range(js4)})`,
      `(${x(napi8.estimate)} on \`napi\`, ${range(napi8)})`,
      `from ${Math.round(row('napi').peakRssMB)} to ${Math.round(row('napi-semi-4').peakRssMB)} MB`,
    ];
    for (const figure of figures) assert.ok(text.includes(figure), `the guide says: ${figure}`);
  });

  it('makes the claims the data shows: 4 MB costs napi beyond the noise, js within it, and less memory', () => {
    assert.ok(cpu('napi-semi-4', 'napi').low > 1, 'napi pays for 4 MB semi-spaces');
    assert.ok(pair('napi-semi-4', 'napi', 'requestsPerSecond').high < 1, 'napi serves fewer requests');
    const js = cpu('js-semi-4', 'js');
    assert.ok(js.low < 1 && js.high > 1, 'js: no cost the data can tell');
    assert.ok(cpu('napi-semi-8', 'napi').estimate < cpu('napi-semi-4', 'napi').estimate, '8 MB costs less');
    assert.ok(row('napi-semi-4').peakRssMB < row('napi').peakRssMB, 'peak RSS under load falls');
  });
});
