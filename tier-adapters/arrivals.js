'use strict';

// Whether the HTTP server accepted a connection since an event-loop tier last
// asked. libuv accepts one connection per loop turn, so a tier's slice of work
// yields a turn while more may be waiting (createEventLoopTier's `deferTurn`).
// The server says, the tier asks; neither needs the other to exist first.

function createArrivals() {
  let arrived = false;
  return {
    /** A connection was accepted (createHttpServer's `arrivals` option calls it). */
    connected: () => {
      arrived = true;
    },
    /** Whether one was since the last call: pass as `deferTurn`. */
    sinceAsked: () => {
      const was = arrived;
      arrived = false;
      return was;
    },
  };
}

module.exports = { createArrivals };
