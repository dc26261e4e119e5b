'use strict';

// Scale-out across hosts, with the network failing the way a network fails.
// Three hosts as network namespaces joined by veth links: nginx with
// deploy/nginx.conf on `lb`, a qr_server on each of `a` and `b`, and a steady
// load from `lb`. Then b's network is cut (every packet in or out of b
// dropped: no refusal, no reset, the packets vanish) and restored, and later
// b's process is frozen (SIGSTOP) and thawed. Every request must succeed;
// what the failures cost is the latency the test reports, bounded by the
// timeouts nginx.conf sets. Root only (CI runs as root): namespaces, links
// and nftables need it.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile, execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { promisify } = require('node:util');
const { startServer, ROOT } = require('../helpers/servers');
const { waitFor, isAlive } = require('../helpers/processes');
const { renderNginxConf } = require('../../deploy/start');

const run = promisify(execFile);
const NGINX = process.env.NGINX_BIN || (fs.existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx');
const QR_SERVER = process.env.QR_SERVER_BIN || path.join(ROOT, 'target/release/qr_server');
const LOAD = path.join(ROOT, 'test/helpers/steady-load.js');
const ID = process.pid % 100_000;
const NS = { lb: `qr-lb-${ID}`, a: `qr-a-${ID}`, b: `qr-b-${ID}` };
const BACKENDS = { a: '10.231.1', b: '10.231.2' }; // each link's /24: lb is .1, the backend .2
const PORT = 8080;
const METRICS_PORT = 9464; // qr_server's operator listener, beside the public port

// The load, and when each fault starts and ends, in seconds from its start.
const RATE = 100;
const SECONDS = 22;
const CUT = [3, 10];
const FROZEN = [13, 18];
// What a failure may add to a request: nginx's proxy_connect_timeout or
// proxy_read_timeout (deploy/nginx.conf: 1 s each), then the retry on the
// other instance, with room for this shared machine.
const ADDED_LATENCY_BOUND_MS = 2_500;

function available(command, args) {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const SKIP =
  process.getuid() !== 0
    ? 'needs root: network namespaces, veth links and nftables'
    : !available('ip', ['-V'])
      ? 'iproute2 is not installed (scripts/setup.sh installs it)'
      : !available('nft', ['--version'])
        ? 'nftables is not installed (scripts/setup.sh installs it)'
        : !available(NGINX, ['-v']) && 'nginx is not installed (scripts/setup.sh installs it)';

const ip = (...args) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
const inNs = (ns, command, ...args) => run('ip', ['netns', 'exec', ns, command, ...args]);
const sleepUntil = (t0, seconds) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, t0 + seconds * 1000 - Date.now())));

/** Every packet into or out of `ns` dropped (on) or let through again (off). */
async function cut(ns, on) {
  if (!on) return inNs(ns, 'nft', 'delete', 'table', 'inet', 'cut');
  await inNs(
    ns,
    'nft',
    'add table inet cut; ' +
      'add chain inet cut in { type filter hook input priority -300; policy drop; }; ' +
      'add chain inet cut out { type filter hook output priority -300; policy drop; }',
  );
}

/** GET from inside `lb` (the test itself runs outside every namespace). */
async function getFromLb(url) {
  const script =
    `fetch(${JSON.stringify(url)}, { signal: AbortSignal.timeout(3000) })` +
    `.then(async (r) => process.stdout.write(JSON.stringify({ status: r.status, body: await r.text() })), ` +
    `() => process.exit(1))`;
  return JSON.parse((await inNs(NS.lb, process.execPath, '-e', script)).stdout);
}

/** The QR codes qr_server on `host` has answered, from its operator listener's /metrics. */
async function answeredBy(host) {
  const { body } = await getFromLb(`http://${BACKENDS[host]}.2:${METRICS_PORT}/metrics`);
  return Number(/^http_requests_total\{route="\/qrcode",status="200",tier="axum"\} (\d+)$/m.exec(body)?.[1] ?? 0);
}

function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

describe('scale-out across three network namespaces: a cut link and a frozen host', { skip: SKIP }, () => {
  const servers = {};
  let nginx;
  let prefix;

  before(async () => {
    for (const ns of Object.values(NS)) {
      ip('netns', 'add', ns);
      ip('-n', ns, 'link', 'set', 'lo', 'up');
    }
    for (const [host, net] of Object.entries(BACKENDS)) {
      const [near, far] = [`qlb${host}${ID}`, `q${host}${ID}`];
      ip('link', 'add', near, 'netns', NS.lb, 'type', 'veth', 'peer', 'name', far, 'netns', NS[host]);
      ip('-n', NS.lb, 'addr', 'add', `${net}.1/24`, 'dev', near);
      ip('-n', NS[host], 'addr', 'add', `${net}.2/24`, 'dev', far);
      ip('-n', NS.lb, 'link', 'set', near, 'up');
      ip('-n', NS[host], 'link', 'set', far, 'up');
      servers[host] = await startServer('ip', [
        'netns',
        'exec',
        NS[host],
        QR_SERVER,
        '--host',
        `${net}.2`,
        '--port',
        String(PORT),
        '--metrics-host',
        `${net}.2`,
        '--metrics-port',
        String(METRICS_PORT),
      ]);
    }
    prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-scale-out-'));
    fs.chmodSync(prefix, 0o755); // nginx's workers run as nobody
    const hosts = Object.values(BACKENDS).map((net) => `${net}.2:${PORT}`);
    const conf = renderNginxConf(fs.readFileSync(path.join(ROOT, 'deploy/nginx.conf'), 'utf8'), {
      listen: `127.0.0.1:${PORT}`,
      upstreams: { qr_server: hosts, node_server: hosts },
    });
    fs.writeFileSync(path.join(prefix, 'nginx.conf'), conf);
    nginx = spawn(
      'ip',
      ['netns', 'exec', NS.lb, NGINX, '-p', prefix, '-c', path.join(prefix, 'nginx.conf'), '-g', 'daemon off;'],
      { stdio: 'ignore' },
    );
    await waitFor(
      () =>
        getFromLb(`http://127.0.0.1:${PORT}/qrcode?text=up`).then(
          (r) => r.status === 200,
          () => false,
        ),
      10_000,
      'nginx in lb',
    );
  });

  after(async () => {
    if (nginx?.exitCode === null) {
      nginx.kill('SIGQUIT');
      await new Promise((resolve) => nginx.once('exit', resolve));
    }
    for (const server of Object.values(servers)) {
      process.kill(server.child.pid, 'SIGCONT');
      await server.stop();
    }
    for (const ns of Object.values(NS)) {
      try {
        ip('netns', 'del', ns); // its links go with it
      } catch {}
    }
    if (prefix) fs.rmSync(prefix, { recursive: true, force: true });
  });

  it('loses no request while one of two backends is cut off, then frozen', async (t) => {
    assert.ok(isAlive(servers.b.child.pid));
    const load = spawn(
      'ip',
      ['netns', 'exec', NS.lb, process.execPath, LOAD, `http://127.0.0.1:${PORT}`, String(RATE), String(SECONDS)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    load.stdout.on('data', (chunk) => (output += chunk));
    const finished = new Promise((resolve) => load.once('exit', resolve));
    const t0 = Date.now();
    const marks = {};

    await sleepUntil(t0, CUT[0]);
    marks.cut = Date.now();
    await cut(NS.b, true);
    await sleepUntil(t0, CUT[1]);
    await cut(NS.b, false);
    marks.restored = Date.now();
    const bAtRestore = await answeredBy('b');
    await sleepUntil(t0, FROZEN[0]);
    const bBeforeFreeze = await answeredBy('b');
    process.kill(servers.b.child.pid, 'SIGSTOP');
    marks.frozen = Date.now();
    await sleepUntil(t0, FROZEN[1]);
    process.kill(servers.b.child.pid, 'SIGCONT');
    marks.thawed = Date.now();
    const bAtThaw = await answeredBy('b');

    assert.equal(await finished, 0);
    const records = JSON.parse(output);
    const bAtEnd = await answeredBy('b');

    const phases = [
      ['before', -Infinity, marks.cut],
      ['link cut', marks.cut, marks.restored],
      ['restored', marks.restored, marks.frozen],
      ['frozen', marks.frozen, marks.thawed],
      ['thawed', marks.thawed, Infinity],
    ];
    const report = phases.map(([name, from, to]) => {
      const latencies = records
        .filter(([at]) => at >= from && at < to)
        .map(([, ms]) => ms)
        .sort((x, y) => x - y);
      return (
        `${name}: ${latencies.length} requests, p50 ${percentile(latencies, 50).toFixed(1)} ms, ` +
        `p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${latencies.at(-1).toFixed(1)} ms, ` +
        `${latencies.filter((ms) => ms > 100).length} over 100 ms`
      );
    });
    const failed = records.filter(([, , outcome]) => outcome !== 200);
    t.diagnostic(
      `${records.length} requests at ${RATE}/s, ${failed.length} failed; ` +
        `b answered ${bAtRestore} by the restore, ${bBeforeFreeze} before the freeze, ` +
        `${bAtThaw} at the thaw, ${bAtEnd} at the end`,
    );
    for (const line of report) t.diagnostic(line);

    assert.equal(records.length, RATE * SECONDS);
    assert.deepEqual(failed.slice(0, 5), [], `${failed.length} failed requests`);
    const slowest = Math.max(...records.map(([, ms]) => ms));
    assert.ok(
      slowest < ADDED_LATENCY_BOUND_MS,
      `slowest request ${slowest.toFixed(0)} ms (bound ${ADDED_LATENCY_BOUND_MS} ms)\n${report.join('\n')}`,
    );
    // nginx took b out while it was cut, and back once restored: b served
    // between the restore and the freeze, and again after the thaw.
    assert.ok(bBeforeFreeze > bAtRestore, `b served nothing after the restore (${bAtRestore} -> ${bBeforeFreeze})`);
    assert.ok(bAtEnd > bAtThaw, `b served nothing after the thaw (${bAtThaw} -> ${bAtEnd})`);
  });
});
