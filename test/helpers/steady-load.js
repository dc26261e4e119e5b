#!/usr/bin/env node
'use strict';

// node steady-load.js URL RATE SECONDS
// GETs URL/qrcode?text=... RATE times a second for SECONDS on keep-alive
// connections, each timed from its scheduled send (a stall is charged to every
// request it delays), and prints one JSON array: [sentAtEpochMs, ms, status or
// error] per request. Run where the client should be: test/operations/
// scale-out.test.js starts it inside a network namespace.
const http = require('node:http');

const [url, rate, seconds] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
// A request is given up after this: far beyond any timeout nginx.conf sets.
const GIVE_UP_MS = 30_000;
const epochMs = () => performance.timeOrigin + performance.now();

function get(path) {
  return new Promise((resolve) => {
    const req = http.get(`${url}${path}`, { agent, timeout: GIVE_UP_MS }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => (bytes += chunk.length));
      res.on('end', () => resolve(res.statusCode === 200 && bytes > 0 ? 200 : res.statusCode));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (err) => resolve(err.message));
  });
}

async function main() {
  const records = [];
  const pending = [];
  const start = epochMs();
  const total = Math.round(rate * seconds);
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - epochMs();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(
      get(`/qrcode?text=${encodeURIComponent(`scale-out ${i}`)}`).then((outcome) =>
        records.push([due, epochMs() - due, outcome]),
      ),
    );
  }
  await Promise.all(pending);
  agent.destroy();
  process.stdout.write(JSON.stringify(records.sort((a, b) => a[0] - b[0])));
}

main();
