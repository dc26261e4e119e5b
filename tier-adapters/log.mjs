// The ES module entry of tier-adapters/log: the CommonJS one's exports by name.
import log from './json-log.js';

export const { createLog, LINES_PER_SECOND } = log;
