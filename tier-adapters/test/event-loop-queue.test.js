'use strict';

// tier-adapters/event-loop-queue.js: synchronous jobs in order, with the event
// loop turning between slices, a bounded wait and abort-on-hang-up.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { createLoopQueue, MAX_DEFERRED_TURNS } = require('../event-loop-queue');

const busy = (ms) => {
  const end = Date.now() + ms;
  while (Date.now() < end);
};

describe('createLoopQueue', () => {
  it('runs jobs in arrival order and passes results and errors through', async () => {
    const queue = createLoopQueue();
    const order = [];
    const results = await Promise.allSettled([
      queue.run(() => order.push('a') && 'a'),
      queue.run(() => {
        order.push('b');
        throw new Error('b failed');
      }),
      queue.run(() => order.push('c') && Promise.resolve('c')),
    ]);
    assert.deepEqual(order, ['a', 'b', 'c']);
    assert.deepEqual(
      results.map((r) => r.value ?? r.reason.message),
      ['a', 'b failed', 'c'],
    );
  });

  it("runs jobs of priority 'low' only when no other waits", async () => {
    const queue = createLoopQueue();
    const order = [];
    await Promise.all([
      queue.run(() => order.push('low 1'), { priority: 'low' }),
      queue.run(() => order.push('a')),
      queue.run(() => order.push('low 2'), { priority: 'low' }),
      queue.run(() => order.push('b')),
    ]);
    assert.deepEqual(order, ['a', 'b', 'low 1', 'low 2']);
  });

  it('lets the event loop turn between slices of long jobs', async () => {
    const queue = createLoopQueue();
    const events = [];
    const jobs = Array.from({ length: 5 }, (_, i) =>
      queue.run(() => {
        busy(5);
        events.push(`job ${i}`);
      }),
    );
    // A callback two loop turns from now must not wait for all 25 ms of jobs.
    setImmediate(() => setImmediate(() => events.push('turn')));
    await Promise.all(jobs);
    await new Promise((r) => setImmediate(r));
    const turn = events.indexOf('turn');
    assert.ok(turn > 0 && turn < 5, events.join(', '));
  });

  it('waits a turn while deferTurn() says a connection was accepted, at most MAX_DEFERRED_TURNS in a row', async () => {
    let accepts = 3;
    const queue = createLoopQueue({ deferTurn: () => accepts-- > 0 });
    const events = [];
    const job = queue.run(() => events.push('job'));
    // Each turn accepts one connection: the job runs on the fourth.
    const turns = (n) =>
      new Promise((resolve) =>
        (function turn(i) {
          events.push(`turn ${i}`);
          if (i < n) setImmediate(() => turn(i + 1));
          else resolve();
        })(1),
      );
    await Promise.all([job, turns(6)]);
    assert.ok(events.indexOf('job') > events.indexOf('turn 3'), events.join(', '));
    assert.ok(events.indexOf('job') < events.indexOf('turn 6'), events.join(', '));

    // A storm that never stops delays the work, and no more.
    let asked = 0;
    const storm = createLoopQueue({
      deferTurn: () => {
        asked++;
        return true;
      },
    });
    await Promise.all([storm.run(() => 1), storm.run(() => 2)]);
    assert.ok(asked >= MAX_DEFERRED_TURNS + 1 && asked <= 2 * (MAX_DEFERRED_TURNS + 1), `asked ${asked} times`);
  });

  it('refuses past maxQueue with 503 "server busy" and frees places as jobs run', async () => {
    const queue = createLoopQueue({ maxQueue: 3 });
    const accepted = [1, 2, 3].map((i) => queue.run(() => i));
    await assert.rejects(
      queue.run(() => 4),
      { code: 'SERVER_BUSY', status: 503, message: 'server busy' },
    );
    assert.equal(queue.size, 3);
    assert.deepEqual(await Promise.all(accepted), [1, 2, 3]);
    assert.equal(queue.size, 0);
    assert.equal(await queue.run(() => 5), 5);
  });

  it('drops a job whose signal aborts before it runs, and gives its place back', async () => {
    const queue = createLoopQueue({ maxQueue: 2 });
    const ran = [];
    const abort = new AbortController();
    const gone = queue.run(() => ran.push('gone'), { signal: abort.signal });
    const kept = queue.run(() => ran.push('kept'));
    abort.abort(new Error('client hung up'));
    await assert.rejects(gone, /client hung up/);
    assert.equal(queue.size, 1);
    await kept;
    assert.deepEqual(ran, ['kept']);
    await assert.rejects(
      queue.run(() => 0, { signal: abort.signal }),
      /client hung up/,
    );
  });
});
