'use strict';

// The tests start servers exactly as the benchmark does.
module.exports = require('../../harness/launch');
