'use strict';

// A server's event-loop delay (GET /metrics/event-loop), from every worker of a cluster: each reply
// carries its worker's pid, and each request goes on a new connection, which
// the cluster hands to the workers in turn, until every pid has answered.
const http = require('node:http');

function getOnNewConnection(url) {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => {
        try {
          resolve(res.statusCode === 200 ? JSON.parse(body) : null);
        } catch {
          resolve(null);
        }
      });
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
  });
}

/** One reply per worker (by pid), asking at most 8 times per worker. */
async function eachWorker(url, workers) {
  const byPid = new Map();
  for (let i = 0; i < workers * 8 && byPid.size < workers; i++) {
    const reply = await getOnNewConnection(url);
    if (reply && !byPid.has(reply.pid)) byPid.set(reply.pid, reply);
  }
  return [...byPid.values()];
}

/** Starts a new window on every worker. */
function resetEventLoop(serverUrl, workers) {
  return eachWorker(`${serverUrl}/metrics/event-loop?reset=1`, workers);
}

/** Every worker's delay since its reset, and the worst of them. */
async function readEventLoop(serverUrl, workers) {
  const perWorker = await eachWorker(`${serverUrl}/metrics/event-loop`, workers);
  if (perWorker.length === 0) return null;
  return {
    p99: Math.max(...perWorker.map((w) => w.p99)),
    max: Math.max(...perWorker.map((w) => w.max)),
    workersRead: perWorker.length,
    perWorker,
  };
}

module.exports = { resetEventLoop, readEventLoop };
