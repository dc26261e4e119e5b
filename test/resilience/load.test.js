'use strict';

// Every tier under 200 connections for 5 s: nothing fails. Throughput
// is the benchmark's business; this checks that sustained load loses nothing.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { startTier } = require('../helpers/servers');
const { drive } = require('../../bench/lib/drive');
const { TIERS } = require('../helpers/tiers');
const { URLS } = require('../helpers/fixtures');

const CONNECTIONS = 200;
// 5 s per tier keeps every tier's pools, queues and children full (200
// connections, hundreds of requests on the slowest tier on a slow VM)
// within CI's budget; LOAD_TEST_SECONDS lengthens it.
const SECONDS = Number(process.env.LOAD_TEST_SECONDS) || 5;
const PATHS = URLS.map((url) => `/qrcode?text=${encodeURIComponent(url)}`);

describe(`${SECONDS} s at ${CONNECTIONS} connections`, () => {
  for (const tier of TIERS) {
    it(`tier ${tier}: zero errors, zero non-2xx`, async () => {
      const server = await startTier(tier);
      try {
        const load = await drive(server.url, {
          connections: CONNECTIONS,
          warmup: 0,
          duration: SECONDS,
          paths: PATHS,
          keepLatencies: false,
        });
        assert.ok(load.responses > SECONDS, `${load.responses} responses`);
        assert.deepEqual(
          { errors: load.errors, timeouts: load.timeouts, non2xx: load.non2xx },
          { errors: 0, timeouts: 0, non2xx: 0 },
        );
      } finally {
        const status = await server.stop();
        assert.equal(status, 0, `exited with ${status} on SIGTERM; its last output:\n${server.output().slice(-2000)}`);
      }
    });
  }
});
