'use strict';

// The container image (`make image`: deploy/image) and the Kubernetes
// manifests (deploy/kubernetes) on real podman: the image is one static file
// run as a non-root user on a read-only root, its health check works without
// a shell, and the Deployment played by `podman kube play` serves a QR code
// and drains on SIGTERM: requests whose heads were half sent before the
// signal are answered, and the container exits 0 before the grace period.
// Root only (CI runs as root): rootless podman needs subordinate ids and
// user-mode networking this test does not set up.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { promisify } = require('node:util');
const { ROOT } = require('../helpers/servers');
const { get, qrcodePath, parseResponses } = require('../helpers/http');
const { connect } = require('../helpers/sockets');
const { decodeQrPng } = require('../helpers/decode');
const { waitFor, within } = require('../helpers/processes');

const run = promisify(execFile);
const MANIFEST = path.join(ROOT, 'deploy/kubernetes/qr-server.yaml');
const ENV = {
  ...process.env,
  CONTAINERS_CONF: process.env.CONTAINERS_CONF || path.join(ROOT, 'deploy/image/containers.conf'),
};
const VERSION = /^version = "(.+)"$/m.exec(fs.readFileSync(path.join(ROOT, 'Cargo.toml'), 'utf8'))[1];
const IMAGE = `localhost/qr-server:${VERSION}`;
const UID = 65532;

function hasPodman() {
  try {
    execFileSync('podman', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const SKIP =
  process.getuid() !== 0
    ? 'needs root: rootless podman needs subordinate ids and networking set up'
    : !hasPodman() && 'podman is not installed (scripts/setup.sh installs it as root)';

const podman = async (...args) => (await run('podman', args, { env: ENV, maxBuffer: 1 << 24 })).stdout.trim();
const inspect = async (what, name) => {
  const found = JSON.parse(await podman(what, 'inspect', name));
  return Array.isArray(found) ? found[0] : found; // podman 4.3's pod inspect: one object
};

/** The container's main process as the host sees it: its uid and effective capabilities. */
function processStatus(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return {
    uid: Number(/^Uid:\s+(\d+)/m.exec(status)[1]),
    capabilities: BigInt(`0x${/^CapEff:\s+(\w+)/m.exec(status)[1]}`),
  };
}

/** Waits until `GET /healthz` at `url` answers 200. */
const ready = (url) =>
  waitFor(
    () =>
      get(url, '/healthz').then(
        (r) => r.status === 200,
        () => false,
      ),
    10_000,
    `${url} ready`,
  );

describe('the qr_server image and its Kubernetes manifests, on podman', { skip: SKIP }, () => {
  before(async () => {
    await run('bash', [path.join(ROOT, 'scripts/image.sh')], { cwd: ROOT, env: ENV });
  });

  it('is one static executable, run as a numeric non-root user, with a health check', async () => {
    const image = await inspect('image', IMAGE);
    assert.equal(image.RootFS.Layers.length, 1, 'FROM scratch and one COPY: one layer');
    assert.equal(image.Config.User, `${UID}:${UID}`);
    assert.deepEqual(image.Config.Entrypoint, ['/qr_server']);
    assert.deepEqual(image.Healthcheck?.Test, ['CMD', '/qr_server', '--health-check']);
    assert.equal(image.Config.Labels['org.opencontainers.image.version'], VERSION);
    const binary = fs.statSync(path.join(ROOT, 'target/x86_64-unknown-linux-musl/release/qr_server')).size;
    assert.ok(image.Size < binary + 64 * 1024, `image ${image.Size} bytes, the executable ${binary}`);
  });

  describe('podman run --read-only', () => {
    const NAME = 'qr-server-image-test';
    let url;
    before(async () => {
      await podman('rm', '--force', '--ignore', NAME);
      await podman('run', '--detach', '--read-only', '--name', NAME, '--publish', '127.0.0.1::8080', IMAGE);
      url = `http://${(await podman('port', NAME, '8080/tcp')).split('\n')[0]}`;
      await ready(url);
    });
    after(() => podman('rm', '--force', '--ignore', NAME));

    it('serves a QR code as uid 65532 and passes its own health check', async () => {
      const res = await get(url, qrcodePath('from a scratch image'));
      assert.equal(res.status, 200);
      assert.equal((await decodeQrPng(res.body)).text, 'from a scratch image');
      const container = await inspect('container', NAME);
      assert.equal(container.HostConfig.ReadonlyRootfs, true);
      assert.equal(processStatus(container.State.Pid).uid, UID);
      // The HEALTHCHECK, run in the container by podman: no shell, no curl.
      await podman('healthcheck', 'run', NAME);
      assert.equal((await inspect('container', NAME)).State.Health.Status, 'healthy');
    });

    it('fails its health check once the server no longer answers', async () => {
      await podman('pause', NAME);
      try {
        await assert.rejects(podman('healthcheck', 'run', NAME));
      } finally {
        await podman('unpause', NAME);
      }
    });
  });

  describe('podman kube play deploy/kubernetes/qr-server.yaml', () => {
    let manifest;
    let pod;
    let url;
    before(async () => {
      // One replica: podman 4.3 publishes each containerPort on the host's
      // same port, so a second pod cannot bind 8080 (podman 4.4 and later
      // play one replica whatever the Deployment says).
      manifest = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'qr-kube-')), 'qr-server.yaml');
      const text = fs.readFileSync(MANIFEST, 'utf8');
      assert.match(text, /^ {2}replicas: 2$/m);
      fs.writeFileSync(manifest, text.replace(/^ {2}replicas: 2$/m, '  replicas: 1'));
      await podman('kube', 'play', '--replace', manifest);
      pod = await inspect('pod', 'qr-server-pod-0');
      const infra = await inspect('container', pod.InfraContainerID);
      const ip = Object.values(infra.NetworkSettings.Networks)[0].IPAddress;
      url = `http://${ip}:8080`;
      await ready(url);
    });
    after(() => podman('kube', 'down', manifest).catch(() => {}));

    it('runs the container as the manifest says: non-root, read-only root, no capabilities', async () => {
      const name = pod.Containers.find((c) => c.Id !== pod.InfraContainerID).Name;
      const container = await inspect('container', name);
      assert.equal(container.HostConfig.ReadonlyRootfs, true);
      assert.deepEqual(processStatus(container.State.Pid), { uid: UID, capabilities: 0n });
      const res = await get(url, qrcodePath('through the pod'));
      assert.equal(res.status, 200);
      assert.equal((await decodeQrPng(res.body)).text, 'through the pod');
      // /metrics on the manifest's metrics port, none on the public one.
      assert.equal((await get(url, '/metrics')).status, 404);
      const metrics = await get(`http://${new URL(url).hostname}:9464`, '/metrics');
      assert.equal(metrics.status, 200);
      assert.match(
        metrics.body.toString(),
        /^http_requests_total\{route="\/qrcode",status="200",tier="axum"\} [1-9]\d*$/m,
      );
    });

    it('drains on SIGTERM: requests half sent before it are answered, exit 0 within the grace period', async () => {
      const { hostname } = new URL(url);
      // Kept-alive connections (one request answered on each), then the
      // first half of a second head, as in test/resilience/shutdown.test.js.
      const requests = [
        ['/healthz', 200],
        ['/qrcode?text=%FF', 400],
        [qrcodePath('drained in a pod'), 200],
      ].map(([target, status]) => ({ target, status, conn: connect(url) }));
      for (const r of requests) {
        r.conn.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
        await waitFor(() => r.conn.chunks.length > 0, 5000, 'the first answer');
        r.conn.socket.write(`GET ${r.target} HTTP/1.1\r\nHost: ${hostname}\r\n`);
      }
      const name = pod.Containers.find((c) => c.Id !== pod.InfraContainerID).Name;
      // As a kubelet stops a pod: SIGTERM to the app container, SIGKILL after
      // the manifest's grace period (podman 4.3 does not read it), and the
      // pod's network only once the container is gone. (`podman pod stop`
      // stops the infra container alongside, and with it the network: a
      // connection being drained then hears nothing, ever.)
      const grace = Number(/terminationGracePeriodSeconds: (\d+)/.exec(fs.readFileSync(MANIFEST, 'utf8'))[1]);
      const stopping = Date.now();
      const stopped = podman('stop', '--time', String(grace), name);
      await waitFor(
        async () =>
          !(await get(url, '/healthz').then(
            () => true,
            () => false,
          )),
        5000,
        'accepting stopped',
      );
      try {
        for (const r of requests) r.conn.socket.write('\r\n');
        for (const r of requests) {
          const [first, second] = parseResponses(await within(r.conn.closed, 15_000, `${r.target} closing`));
          assert.equal(first?.status, 200, `${r.target}: first answer`);
          assert.equal(second?.status, r.status, `${r.target} after SIGTERM: ${second?.head}`);
          if (r.status === 200 && r.target !== '/healthz')
            assert.equal((await decodeQrPng(second.body)).text, 'drained in a pod');
        }
      } finally {
        for (const r of requests) r.conn.socket.destroy(); // a failure must not hold the test file open
      }
      await stopped;
      const tookMs = Date.now() - stopping;
      const state = (await inspect('container', name)).State;
      assert.equal(state.ExitCode, 0, `exit code ${state.ExitCode}: killed, not drained`);
      assert.ok(tookMs < grace * 1000, `stopped after ${tookMs} ms`);
    });
  });
});
