'use strict';

// What a service's process needs around its tiers: an HTTP server bounded
// against hostile clients (createHttpServer) that answers a tier's errors the
// same way everywhere (httpResponseFor), the open-file limit it sizes its
// connection cap by, and the child processes it owns: started, supervised and
// restarted with a backoff, stopped with it.
const { createHttpServer, isPipelined, HTTP_LIMITS } = require('./http-server');
const { refuseLongUris, isInvalidTarget } = require('./http-limits');
const { httpResponseFor } = require('./errors');
const { openFileLimit, connectionCap } = require('./fd-limit');
const { spawnOwned, spawnListening, stopChild } = require('./children');
const { superviseServer } = require('./supervise');
const { createBackoff } = require('./backoff');

module.exports = {
  createHttpServer,
  isPipelined,
  HTTP_LIMITS,
  refuseLongUris,
  isInvalidTarget,
  httpResponseFor,
  openFileLimit,
  connectionCap,
  spawnOwned,
  spawnListening,
  stopChild,
  superviseServer,
  createBackoff,
};
