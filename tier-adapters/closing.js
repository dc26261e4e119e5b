'use strict';

const { TierError } = require('./errors');

/** A call made after `close()`: the service is going away, come back elsewhere. */
function closedError() {
  return new TierError('TIER_CLOSED', 'server shutting down', { status: 503, expose: true });
}

module.exports = { closedError };
