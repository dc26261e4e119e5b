'use strict';

// The README's decision guide, held to the committed report by value: every
// figure in "Which tier?" is read back from bench/results/results.json, in
// the order the sentence gives it, and every claim's direction (a saving, a
// loss, "close to") is checked against the same data. A new report that
// changes a figure or flips a claim fails here until the guide is rewritten.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { rpsRatio, pairRatio } = require('../../bench/lib/report');

const ROOT = path.resolve(__dirname, '../..');
const report = JSON.parse(fs.readFileSync(path.join(ROOT, 'bench/results/results.json'), 'utf8'));
const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

const row = (tier) => {
  const r = report.results.find((x) => x.tier === tier && x.workers === 1);
  assert.ok(r, `${tier} is in the committed report`);
  return r;
};
// Higher is better for each, as the summary prints them.
const rps = (tier) => rpsRatio(row(tier)).ratio;
const cpu = (tier) => {
  const st = row(tier).ratios.serverCpuUsPerRequest;
  return { ...st, estimate: 1 / st.estimate, low: 1 / st.high, high: 1 / st.low };
};
const latency = (tier) => {
  const st = row(tier).ratios.oneConnectionMs;
  return { ...st, estimate: 1 / st.estimate, low: 1 / st.high, high: 1 / st.low };
};
const rss = (tier) => ({ estimate: row('js').peakRssMB / row(tier).peakRssMB });
// "Across runtimes": a tier on a runtime ("Node", "Bun", "Deno") against `napi` on Node, higher is better.
const across = (runtime, tier) => {
  const r = (report.crossRuntime ?? []).find((x) => x.runtime.startsWith(`${runtime} `) && x.tier === tier);
  assert.ok(r, `${tier} on ${runtime} is in the committed report's cross-runtime rounds`);
  return r;
};
const againstNapi = (runtime, tier, figure) => {
  const st = pairRatio(across(runtime, tier), across('Node', 'napi'), figure);
  return figure === 'requestsPerSecond' ? st : { ...st, estimate: 1 / st.estimate, low: 1 / st.high, high: 1 / st.low };
};
const fx = (st, digits = 1) => `${st.estimate.toFixed(digits)}x`;
/** Whether two intervals overlap: the data cannot tell the two apart. */
const overlap = (a, b) => a.low <= b.high && b.low <= a.high;
/** a is ahead of b beyond both intervals. */
const ahead = (a, b) => a.low > b.high;

// Each bullet of the guide, by its bold opening: the figures it quotes, in
// order, and the claims its words make.
const BULLETS = [
  {
    opens: 'Start with `napi`',
    figures: () => [
      fx(rps('napi')),
      fx(cpu('napi')),
      fx(pairRatio(row('napi'), row('napi-node-http'), 'serverCpuUsPerRequest'), 2),
    ],
    claims: () => [['napi beats js by tens of times in req/s and CPU', rps('napi').low > 10 && cpu('napi').low > 10]],
  },
  {
    opens: '`napi-async`',
    figures: () => [fx(cpu('napi-async')), fx(cpu('napi')), fx(rps('napi-async'))],
    claims: () => [
      ['the thread-pool hop costs CPU against napi', ahead(cpu('napi'), cpu('napi-async'))],
      ['and req/s', ahead(rps('napi'), rps('napi-async'))],
    ],
  },
  {
    opens: '`ffi`',
    figures: () => [
      fx(rps('ffi')),
      fx(cpu('ffi')),
      fx(rps('napi')),
      fx(cpu('napi')),
      fx(againstNapi('Node', 'ffi', 'serverCpuUsPerRequest'), 2),
      fx(againstNapi('Node', 'ffi', 'oneConnectionMs'), 2),
      fx(againstNapi('Bun', 'napi', 'serverCpuUsPerRequest'), 2),
      fx(againstNapi('Deno', 'napi', 'serverCpuUsPerRequest'), 2),
    ],
    claims: () => {
      const nearNapi = (figure) => Math.abs(againstNapi('Node', 'ffi', figure).estimate - 1) < 0.05;
      return [
        ['ffi and napi: req/s intervals overlap', overlap(rps('ffi'), rps('napi'))],
        ['ffi within 5% of napi on Node in CPU per request', nearNapi('serverCpuUsPerRequest')],
        ['and in one-connection latency', nearNapi('oneConnectionMs')],
        [
          "Bun: napi at Node's CPU per request (the interval holds 1)",
          overlap(againstNapi('Bun', 'napi', 'serverCpuUsPerRequest'), { low: 1, high: 1 }),
        ],
        ['Deno spends more CPU per request', againstNapi('Deno', 'napi', 'serverCpuUsPerRequest').high < 1],
      ];
    },
  },
  {
    opens: '`wasm`',
    figures: () => [fx(rps('wasm')), fx(rps('napi'))],
    claims: () => [
      [
        'wasm close to napi: their req/s intervals overlap or lie within 10%',
        overlap(rps('wasm'), rps('napi')) || rps('wasm').estimate / rps('napi').estimate > 0.9,
      ],
    ],
  },
  {
    opens: '`js-workers` is not the answer',
    figures: () => [fx(rps('js-workers')), fx(cpu('js-workers'))],
    claims: () => [
      ['js-workers saves no CPU per request', cpu('js-workers').high < 1.1],
      [
        'every Rust tier is tens of times ahead in CPU',
        ['cli-pool', 'wasm', 'wasm-raw', 'napi', 'napi-async', 'axum-proxy', 'axum-rpc', 'axum'].every(
          (t) => cpu(t).low > 10,
        ),
      ],
    ],
  },
  {
    opens: '`cli-pool`',
    figures: () => [fx(rps('cli-pool')), fx(latency('cli-pool')), fx(latency('napi')), fx(rps('cli'))],
    claims: () => [
      ['cli-pool slower per call than napi', ahead(latency('napi'), latency('cli-pool'))],
      ['cli per request barely beats js', rps('cli').estimate < 3],
    ],
  },
  {
    opens: '`axum-rpc`',
    figures: () => [fx(rps('axum-rpc')), fx(cpu('axum-rpc')), fx(rps('axum-proxy')), fx(cpu('axum-proxy'))],
    claims: () => [
      ['the HTTP hop costs: axum-rpc ahead of axum-proxy in CPU', ahead(cpu('axum-rpc'), cpu('axum-proxy'))],
      ['and in req/s', ahead(rps('axum-rpc'), rps('axum-proxy'))],
    ],
  },
  {
    opens: 'Move the route to `axum`',
    figures: () => [fx(rps('axum')), fx(cpu('axum')), fx(rss('axum'), 2)],
    claims: () => [
      ['axum ahead of napi in CPU', ahead(cpu('axum'), cpu('napi'))],
      ['and in memory', rss('axum').estimate > 5 * rss('napi').estimate],
    ],
  },
];

/** The bullet of the guide that opens with `opens`, up to the next bullet or heading. */
function bullet(opens) {
  const guide = readme.slice(
    readme.indexOf('## Which tier?'),
    readme.indexOf('\n## ', readme.indexOf('## Which tier?') + 1),
  );
  const start = guide.indexOf(`- **${opens}`);
  assert.ok(start >= 0, `"Which tier?" has a bullet opening "${opens}"`);
  const end = guide.indexOf('\n- **', start + 1);
  return guide.slice(start, end === -1 ? undefined : end).replace(/\s+/g, ' ');
}

describe('"Which tier?" against the committed report', () => {
  for (const b of BULLETS) {
    it(`${b.opens}: its figures are the report's, its claims hold`, () => {
      const text = bullet(b.opens);
      // "at least 143.2x": a lower bound is quoted as one.
      const quoted = text.match(/\d+\.\d+x/g) ?? [];
      assert.deepEqual(quoted, b.figures(), text);
      for (const [claim, holds] of b.claims()) assert.ok(holds, `${b.opens}: ${claim}`);
    });
  }

  it('quotes a lower bound as one, and nothing else', () => {
    const opening = {
      'js-workers': '`js-workers` is not the answer',
      'cli-pool': '`cli-pool`',
      'axum-rpc': '`axum-rpc`',
      axum: 'Move the route to `axum`',
    };
    for (const [tier, opens] of Object.entries(opening)) {
      const { bound } = rpsRatio(row(tier));
      const text = bullet(opens);
      assert.equal(/at least \d+\.\dx/.test(text), bound, `${tier}: ${text}`);
    }
  });
});
