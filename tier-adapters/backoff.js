'use strict';

/**
 * Restart delays for a supervised process: `initialMs` after a crash,
 * doubling with every crash that follows a short life, up to `maxMs`; a
 * process that stayed up `resetAfterMs` starts the sequence over.
 */
function createBackoff({ initialMs = 100, maxMs = 10_000, resetAfterMs = 10_000 } = {}) {
  let delay = initialMs;
  return {
    /** The delay before restarting a process that ran for `livedMs`. */
    next(livedMs) {
      if (livedMs >= resetAfterMs) delay = initialMs;
      const wait = delay;
      delay = Math.min(delay * 2, maxMs);
      return wait;
    },
  };
}

module.exports = { createBackoff };
