'use strict';

// tier-bench-profile's predictions against what the ports then measured:
// each committed prediction (bench/results/predictions/SERVICE/profile.json,
// made before the benchmark run beside it) holds every measured one-worker
// ratio at or below its ceiling, within the measurement's 95% interval, and
// napi's CPU-per-request ratio at 0.7 of its ceiling or more, so the ceiling
// says something. The commands that made both: docs/porting.md.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { render, rpsRatio } = require('../../bench/lib/report');
const { readPrediction } = require('../../bench/lib/prediction');

const DIR = path.resolve(__dirname, '../../bench/results/predictions');
const INFORMATIVE = 0.7;

for (const service of fs.readdirSync(DIR).filter((d) => fs.existsSync(path.join(DIR, d, 'profile.json')))) {
  describe(`the prediction for ${service}`, () => {
    const profile = JSON.parse(fs.readFileSync(path.join(DIR, service, 'profile.json'), 'utf8'));
    const measured = JSON.parse(fs.readFileSync(path.join(DIR, service, 'measured/results.json'), 'utf8'));
    // A rung's own tier, or one of another name that makes the same hop (rpc: the QR service's axum-rpc).
    const row = (rung) =>
      measured.results.find((r) => (r.tier === rung.name || rung.alike?.includes(r.tier)) && r.workers === 1);
    // Higher is better, as the prediction gives it: js's CPU per request over the tier's.
    const cpu = (r) => {
      const st = r.ratios.serverCpuUsPerRequest;
      return { estimate: 1 / st.estimate, low: 1 / st.high, high: 1 / st.low };
    };
    const predicted = profile.prediction.tiers.filter((t) => row(t));

    it('was made before the measurement', () => {
      assert.ok(predicted.length >= 4, `${predicted.length} predicted tiers were measured`);
      const before = Date.parse(profile.finished) < Date.parse(measured.settings.started);
      assert.ok(before, 'the profile finished before the benchmark began');
    });

    for (const t of predicted) {
      it(`${t.name}: measured req/s and CPU per request at or below the ceiling`, () => {
        const r = row(t);
        // A lower bound ("≥": the server does at least that) is held the same way, by its interval's low end.
        const rpsLow = rpsRatio(r).ratio.low;
        assert.ok(rpsLow <= t.ceiling.rps, `req/s ${rpsLow.toFixed(2)}x > ceiling ${t.ceiling.rps.toFixed(2)}x`);
        const c = cpu(r);
        const why = `CPU ${c.low.toFixed(2)}x (interval low) > ceiling ${t.ceiling.cpu.toFixed(2)}x`;
        assert.ok(c.low <= t.ceiling.cpu, why);
      });
    }

    it('the verdict is right about which tiers win and which lose', () => {
      for (const t of predicted) {
        const r = row(t);
        for (const [figure, measuredRatio] of [
          ['rps', rpsRatio(r).ratio.estimate],
          ['cpu', cpu(r).estimate],
        ]) {
          // A range wholly above 1 is a win, wholly below a loss; one that holds 1 claims neither.
          const said = `${t.name} ${figure}: measured ${measuredRatio.toFixed(2)}x`;
          if (t.floor[figure] > 1) assert.ok(measuredRatio > 1, `${said}, predicted a win`);
          if (t.ceiling[figure] < 1) assert.ok(measuredRatio < 1, `${said}, predicted a loss`);
        }
      }
    });

    it(`napi's CPU-per-request ratio is at least ${INFORMATIVE} of its ceiling`, () => {
      const t = predicted.find((x) => x.name === 'napi');
      const c = cpu(row(t));
      const why = `${c.high.toFixed(2)}x < ${INFORMATIVE} x ${t.ceiling.cpu.toFixed(2)}x`;
      assert.ok(c.high >= INFORMATIVE * t.ceiling.cpu, why);
    });
  });
}

describe('the hop to a Rust service', () => {
  it('is predicted for the QR service and held to the hop it measured (axum-rpc)', () => {
    const profile = JSON.parse(fs.readFileSync(path.join(DIR, 'qr/profile.json'), 'utf8'));
    const measured = JSON.parse(fs.readFileSync(path.join(DIR, 'qr/measured/results.json'), 'utf8'));
    const rpc = profile.prediction.tiers.find((t) => t.name === 'rpc');
    assert.ok(rpc, 'the QR prediction has an rpc rung');
    assert.ok(
      rpc.alike.some((tier) => measured.results.some((r) => r.tier === tier)),
      'its run measured axum-rpc',
    );
    // The benchmark reads the rung with the tiers it stands for, and its report puts the measured hop beside it.
    const read = readPrediction(path.join(DIR, 'qr/profile.json'), { file: path.join(DIR, 'config.js') });
    assert.deepEqual(read.tiers.find((t) => t.name === 'rpc').alike, ['axum-rpc']);
    const report = render(measured)['report.md'];
    assert.match(report, /^\| axum-rpc \(as rpc\) \| .* \| in range \|$/m);
  });
});
