#!/usr/bin/env node
'use strict';

// Runs the deploy/ topology on this machine: nginx with deploy/nginx.conf in
// front of N qr_server instances and node-server, on loopback ports.
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { spawnOwned, spawnListening, stopChild } = require('tier-adapters/server');
const { startQrServer } = require('../node-server/lib/qr-server-process');

const CONF = path.join(__dirname, 'nginx.conf');
const NODE_SERVER = path.join(__dirname, '../node-server/server.js');
const READY_TIMEOUT_MS = 10_000;
// Debian puts nginx in /usr/sbin, which is not on every user's PATH.
const NGINX = process.env.NGINX_BIN || (fs.existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx');

const USAGE = `Usage: node deploy/start.js [options]

  --port PORT        nginx's port, 0 for a free one (default 8080)
  --qr-servers N     qr_server instances behind /qrcode (default 2)
  --tier NAME        node-server's tier for everything else (default js);
                     "none": no node-server, qr_server answers every path
                     (how the benchmark measures tier axum-nginx)
  --prefix DIR       nginx's runtime directory (default: a new temp dir)

Env: NGINX_BIN (default /usr/sbin/nginx), QR_SERVER_BIN.

Prints "deploy listening on http://ADDR" once nginx answers; SIGTERM or
SIGINT stops nginx gracefully, then node-server and every qr_server.`;

/**
 * deploy/nginx.conf with this run's addresses: the `listen` line, and one
 * `server` line per address in each upstream, keeping the first line's
 * parameters (max_fails, ...).
 */
function renderNginxConf(conf, { listen, upstreams }) {
  let out = conf.replace(/^(\s*)listen \S+;/m, `$1listen ${listen};`);
  for (const [name, addresses] of Object.entries(upstreams)) {
    out = out.replace(
      new RegExp(`(upstream ${name} \\{[^}]*?)((?:^\\s*server [^\\s;]+[^\\n]*\\n)+)`, 'm'),
      (_, head, lines) => {
        const [, indent, params] = /^(\s*)server [^\s;]+(.*)$/m.exec(lines);
        return head + addresses.map((a) => `${indent}server ${a}${params}\n`).join('');
      },
    );
  }
  return out;
}

/** A loopback port nothing listens on (taken, then released). */
async function freePort() {
  const srv = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => srv.once('listening', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

async function waitForPort(port, nginx) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (nginx.exitCode !== null) throw new Error(`nginx exited with ${nginx.exitCode}`);
    const up = await new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.destroy() && resolve(true));
      socket.on('error', () => resolve(false));
    });
    if (up) return;
    if (Date.now() > deadline) throw new Error(`nginx did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8080' },
      'qr-servers': { type: 'string', default: '2' },
      tier: { type: 'string', default: 'js' },
      prefix: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return console.log(USAGE);
  const count = Number(values['qr-servers']);
  if (!Number.isInteger(count) || count < 1) throw new Error(`invalid --qr-servers "${values['qr-servers']}"`);
  const port = Number(values.port) || (await freePort());

  const qrServers = await Promise.all(Array.from({ length: count }, () => startQrServer()));
  const node =
    values.tier === 'none'
      ? null
      : await spawnListening(process.execPath, [NODE_SERVER, '--tier', values.tier, '--port', '0'], {
          name: 'node-server',
        });
  const qrHosts = qrServers.map((s) => new URL(s.url).host);
  const prefix = values.prefix ? path.resolve(values.prefix) : fs.mkdtempSync(path.join(os.tmpdir(), 'qr-deploy-'));
  fs.mkdirSync(prefix, { recursive: true });
  fs.chmodSync(prefix, 0o755); // nginx workers run as nobody when started by root
  const conf = renderNginxConf(fs.readFileSync(CONF, 'utf8'), {
    listen: `127.0.0.1:${port}`,
    upstreams: { qr_server: qrHosts, node_server: node ? [new URL(node.url).host] : qrHosts },
  });
  fs.writeFileSync(path.join(prefix, 'nginx.conf'), conf);
  const nginx = spawnOwned(NGINX, ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: 'inherit',
  });
  nginx.once('error', (err) => fatal(new Error(`cannot start nginx: ${err.message}`)));
  await waitForPort(port, nginx);
  console.error(`qr_server: ${qrServers.map((s) => `${s.url} (pid ${s.child.pid})`).join(', ')}`);
  console.error(node ? `node-server (${values.tier}): ${node.url} (pid ${node.child.pid})` : 'node-server: none');
  console.error(`nginx: prefix ${prefix} (pid ${nginx.pid})`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await stopChild(nginx, 'SIGQUIT'); // graceful: finishes proxied requests
    await Promise.all([node, ...qrServers].filter(Boolean).map((s) => stopChild(s.child)));
    if (!values.prefix) fs.rmSync(prefix, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  nginx.once('exit', (code) => stopping || fatal(new Error(`nginx exited with ${code}`)));
  // After the handlers: a supervisor may send SIGTERM the moment it reads this.
  console.log(`deploy listening on http://127.0.0.1:${port}`);
}

function fatal(err) {
  console.error(`deploy: ${err.message}`);
  process.exit(1);
}

if (require.main === module) main().catch(fatal);

module.exports = { renderNginxConf, freePort };
