'use strict';

// node-server/lib/sync-queue.js: synchronous jobs in order, with the event
// loop turning between slices.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { runOnLoop } = require('../node-server/lib/sync-queue');

const busy = (ms) => {
  const end = Date.now() + ms;
  while (Date.now() < end);
};

describe('runOnLoop', () => {
  it('runs jobs in arrival order and passes results and errors through', async () => {
    const order = [];
    const results = await Promise.allSettled([
      runOnLoop(() => order.push('a') && 'a'),
      runOnLoop(() => {
        order.push('b');
        throw new Error('b failed');
      }),
      runOnLoop(() => order.push('c') && Promise.resolve('c')),
    ]);
    assert.deepEqual(order, ['a', 'b', 'c']);
    assert.deepEqual(results.map((r) => r.value ?? r.reason.message), ['a', 'b failed', 'c']);
  });

  it('lets the event loop turn between slices of long jobs', async () => {
    const events = [];
    const jobs = Array.from({ length: 5 }, (_, i) => runOnLoop(() => (busy(5), events.push(`job ${i}`))));
    // A callback two loop turns from now must not wait for all 25 ms of jobs.
    setImmediate(() => setImmediate(() => events.push('turn')));
    await Promise.all(jobs);
    await new Promise((r) => setImmediate(r));
    const turn = events.indexOf('turn');
    assert.ok(turn > 0 && turn < 5, events.join(', '));
  });
});
