'use strict';

// The benchmark in quick mode over every tier: a row per tier, no errors, and
// autocannon checked against wrk on the fastest server.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT } = require('../bench/lib/launch');
const { TIERS } = require('./helpers/tiers');

describe('bench/run.js --quick', () => {
  it('reports every tier with zero errors, and autocannon is not the hidden bottleneck', () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-bench-'));
    try {
      execFileSync(process.execPath, [path.join(ROOT, 'bench/run.js'), '--quick', '--connections', '50', '--out', out], {
        stdio: ['ignore', 'ignore', 'inherit'],
        timeout: 300_000,
      });
      const { results, settings } = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'));
      const tiers = [...TIERS, 'axum-nginx'];
      assert.deepEqual(results.map((r) => r.tier).sort(), tiers.sort());
      for (const r of results) {
        assert.equal(r.errors, 0, `${r.tier} errors`);
        assert.equal(r.non2xx, 0, `${r.tier} non-2xx`);
        assert.ok(r.requestsPerSecond > 0 && r.latencyMs.p99 > 0, r.tier);
        assert.ok(r.peakPssMB > 0 && r.serverCpuUsPerRequest > 0, r.tier);
      }
      const report = fs.readFileSync(path.join(out, 'report.md'), 'utf8');
      for (const tier of tiers) assert.match(report, new RegExp(`^\\| ${tier} \\| 1 \\|`, 'm'));
      assert.match(fs.readFileSync(path.join(out, 'chart.svg'), 'utf8'), /^<svg/);

      // Within a loose bound of wrk, or the report shows autocannon was CPU-bound.
      const { wrk, autocannon } = settings.crossCheck;
      const axum = results.find((r) => r.tier === 'axum');
      assert.ok(autocannon / wrk > 0.3 || axum.loadGeneratorCpuCores > 0.9, `autocannon ${autocannon} vs wrk ${wrk} req/s`);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('bench/core-curve.js', () => {
  it('times every in-process binding on every text set and length', () => {
    const out = execFileSync(process.execPath, [path.join(ROOT, 'bench/core-curve.js'), '--rounds', '1', '--round-ms', '2'], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.match(out, /^\| texts \| n \| napi us\/call \| wasm us\/call \| wasm-raw us\/call \| PNG bytes \|$/m);
    const sets = ['ten article URLs', 'all shared texts', '510-512 byte texts', ...[16, 64, 128, 256, 384, 512].map((n) => `${n} bytes`)];
    for (const set of sets) {
      const row = out.split('\n').find((line) => line.startsWith(`| ${set} |`));
      assert.ok(row, `row for ${set}`);
      const figures = row.split('|').slice(3, -1).map(Number);
      assert.equal(figures.length, 4, row);
      assert.ok(figures.every((x) => x > 0), row);
    }
  });
});
