#!/usr/bin/env node
'use strict';

// The service: GET /{{name}}?input=... answers the function's output, run by
// the tier named by --tier. Prints "{{name}} (<tier>) listening on http://ADDR".
const express = require('express');
const { parseArgs } = require('node:util');
const { createTier, tierNames } = require('./tiers');
const { httpResponseFor } = require('./errors');

const { values } = parseArgs({
  options: {
    tier: { type: 'string', default: 'js' },
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '0' },
    'max-queue': { type: 'string', default: '512' },
  },
});
if (!tierNames.includes(values.tier)) {
  console.error(`unknown tier "${values.tier}" (one of: ${tierNames.join(', ')})`);
  process.exit(2);
}

const tier = createTier(values.tier, { maxQueue: Number(values['max-queue']) });
const app = express();
app.set('etag', false);
app.set('x-powered-by', false);

app.get('/{{name}}', async (req, res) => {
  const { input } = req.query;
  if (typeof input !== 'string') return res.status(400).type('text/plain').send('input is required, once');
  // A client that goes away takes its queued work with it.
  const abort = new AbortController();
  res.once('close', () => res.writableFinished || abort.abort());
  try {
    res.type('application/octet-stream').send(await tier.run(input, { signal: abort.signal }));
  } catch (err) {
    if (abort.signal.aborted) return;
    const [status, body, headers] = httpResponseFor(err);
    if (status >= 500 && status !== 503) console.error(`{{name}} failed (${values.tier}):`, err.message);
    res.status(status).set(headers).type('text/plain').send(body);
  }
});

app.get('/healthz', (req, res) => res.json({ tier: values.tier, pid: process.pid }));

const server = app.listen(Number(values.port), values.host, () => {
  const { address, port } = server.address();
  console.log(`{{name}} (${values.tier}) listening on http://${address}:${port}`);
});
// Keep-alive connections outlive a load generator's run: bounded like node-server's.
server.keepAliveTimeout = 5_000;
server.headersTimeout = 10_000;
server.requestTimeout = 30_000;

const stop = () => {
  server.close(async () => {
    await tier.close();
    process.exit(0);
  });
  server.closeIdleConnections();
  setTimeout(() => process.exit(1), 10_000).unref();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
