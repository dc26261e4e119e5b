#!/usr/bin/env node
'use strict';

// The service: GET /ladder-example?input=... answers the function's output, run by
// the tier named by --tier, from tier-adapters' bounded HTTP server (limits,
// timeouts, the pipelining gate, the connection cap, the drain on SIGTERM).
// Prints "ladder-example (<tier>) listening on http://ADDR".
const express = require('express');
const { parseArgs } = require('node:util');
const { createArrivals } = require('tier-adapters');
const {
  createHttpServer,
  refuseLongUris,
  httpResponseFor,
  openFileLimit,
  connectionCap,
} = require('tier-adapters/server');
const { createTier, tierNames, unsupported } = require('./tiers');
const { ANSWERS } = require('./errors');

const { values } = parseArgs({
  options: {
    tier: { type: 'string', default: 'js' },
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '0' },
    'max-queue': { type: 'string', default: '512' },
    'max-connections': { type: 'string', default: '4096' },
  },
});
if (!tierNames.includes(values.tier)) {
  console.error(`unknown tier "${values.tier}" (one of: ${tierNames.join(', ')})`);
  process.exit(2);
}
// One line, not a stack: e.g. tier ffi on a Node without node:ffi.
if (unsupported(values.tier)) {
  console.error(unsupported(values.tier));
  process.exit(2);
}

// The server tells `arrivals` of each connection; event-loop tiers yield a turn while they arrive.
const arrivals = createArrivals();
const tier = createTier(values.tier, { maxQueue: Number(values['max-queue']), deferTurn: arrivals.sinceAsked });
const app = express();
app.set('etag', false);
app.set('x-powered-by', false);
app.use(refuseLongUris);

app.get('/ladder-example', async (req, res) => {
  const { input } = req.query;
  if (typeof input !== 'string') return res.status(400).type('text/plain').send('input is required, once');
  // A client that goes away takes its queued work with it.
  const abort = new AbortController();
  res.once('close', () => res.writableFinished || abort.abort());
  try {
    res.type('application/octet-stream').send(await tier.run(input, { signal: abort.signal }));
  } catch (err) {
    if (abort.signal.aborted) return;
    const [status, body, headers] = httpResponseFor(err, ANSWERS);
    if (status >= 500 && status !== 503) console.error(`ladder-example failed (${values.tier}):`, err.message);
    res.status(status).set(headers).type('text/plain').send(body);
  }
});

app.get('/healthz', (_req, res) => res.json({ tier: values.tier, pid: process.pid }));

const maxConnections = connectionCap(Number(values['max-connections']), openFileLimit());
const http = createHttpServer(app, { maxConnections, arrivals });
http.server.listen(Number(values.port), values.host, () => {
  const { address, port } = http.server.address();
  console.log(`ladder-example (${values.tier}) listening on http://${address}:${port}`);
});

// Every request whose head has arrived is answered, then the tier closes.
const stop = async () => {
  setTimeout(() => process.exit(1), 10_000).unref();
  await http.shutdown();
  await tier.close();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
