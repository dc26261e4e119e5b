'use strict';

// tier-adapters/backoff.js: restart delays for supervised processes.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { createBackoff } = require('../backoff');

describe('createBackoff', () => {
  it('doubles while the process keeps dying young, up to the cap, and starts over after a long life', () => {
    const backoff = createBackoff({ initialMs: 100, maxMs: 1000, resetAfterMs: 5000 });
    const young = Array.from({ length: 6 }, () => backoff.next(10));
    assert.deepEqual(young, [100, 200, 400, 800, 1000, 1000]);
    assert.equal(backoff.next(5000), 100);
    assert.equal(backoff.next(10), 200);
  });
});
