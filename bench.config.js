'use strict';

// What `node bench/run.js` (tier-bench) measures when run from here without
// --config: the QR service's tiers.
module.exports = require('./bench/config/qr');
