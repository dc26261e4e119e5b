'use strict';

// The toolkit's own packages in dist/ (tier-adapters, tier-bench,
// create-rust-ladder), installed as a team installs them: into a fresh
// project, with no Rust toolchain on PATH; loaded from CommonJS and ESM,
// type-checked by tsc, their commands run. test/tooling/team.test.js takes
// them through a whole port.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT } = require('../helpers/servers');

const DIST = path.join(ROOT, 'dist');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const PATH_WITHOUT_RUST = process.env.PATH.split(':')
  .filter((dir) => !['cargo', 'rustc', 'rustup'].some((t) => fs.existsSync(path.join(dir, t))))
  .join(':');
const ENV = { ...process.env, PATH: PATH_WITHOUT_RUST };
const PACKAGES = ['tier-adapters', 'tier-bench', 'create-rust-ladder'];

const tarball = (name) => {
  const file = fs.readdirSync(DIST).find((f) => new RegExp(`^${name}-\\d+\\.\\d+\\.\\d+\\.tgz$`).test(f));
  assert.ok(file, `${name}-VERSION.tgz in dist/ (run \`make package\`)`);
  return path.join(DIST, file);
};
const node = (args, cwd) => execFileSync(process.execPath, args, { cwd, env: ENV, encoding: 'utf8' });

describe('dist/: the toolkit packages', () => {
  let app;
  before(() => {
    app = fs.mkdtempSync(path.join(os.tmpdir(), 'toolkit-app-'));
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true }));
    // pino and prom-client: the optional peers of tier-adapters/log and /prometheus.
    const install = spawnSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', ...PACKAGES.map(tarball), 'pino@10', 'prom-client@15'],
      { cwd: app, env: ENV, encoding: 'utf8' },
    );
    assert.equal(install.status, 0, install.stderr);
  });
  after(() => fs.rmSync(app, { recursive: true, force: true }));

  it('installs with no Rust toolchain on PATH, each with its README, types and nothing but its `files`', () => {
    assert.notEqual(
      spawnSync('sh', ['-c', 'command -v cargo || command -v rustc'], { env: ENV }).status,
      0,
      'no cargo or rustc on PATH',
    );
    const files = (name) =>
      fs
        .readdirSync(path.join(app, 'node_modules', name), { recursive: true })
        .filter((f) => !f.startsWith('node_modules'));
    for (const name of PACKAGES) assert.ok(files(name).includes('README.md'), name);
    assert.ok(files('tier-adapters').includes('http-server.js'));
    assert.ok(!files('tier-adapters').some((f) => f.startsWith('test')), 'no tests in tier-adapters');
    assert.ok(
      !files('tier-bench').some((f) => f.startsWith('config') || f.startsWith('results') || f.startsWith('reference')),
      'nothing of the QR benchmark in tier-bench',
    );
    assert.ok(files('create-rust-ladder').includes(path.join('template', 'ladder', '_gitignore')));
    // Nothing QR in the generic packages.
    for (const name of ['tier-adapters', 'tier-bench']) {
      for (const f of files(name).filter((f) => f.endsWith('.js') || f.endsWith('.d.ts'))) {
        assert.doesNotMatch(
          fs.readFileSync(path.join(app, 'node_modules', name, f), 'utf8'),
          /qr_|qrcode|QR code|QR-code/i,
          `${name}/${f}`,
        );
      }
    }
  });

  it('loads from CommonJS and ESM with the same exports, one implementation', () => {
    for (const name of [
      'tier-adapters',
      'tier-adapters/server',
      'tier-adapters/log',
      'tier-adapters/prometheus',
      'tier-bench',
    ]) {
      const cjs = JSON.parse(node(['-p', `JSON.stringify(Object.keys(require('${name}')).sort())`], app));
      const esm = JSON.parse(
        node(
          [
            '--input-type=module',
            '-e',
            `import * as m from '${name}'; process.stdout.write(JSON.stringify(Object.keys(m).sort()))`,
          ],
          app,
        ),
      );
      assert.deepEqual(esm, cjs, name);
    }
    const same = node(
      [
        '--input-type=module',
        '-e',
        "import { TierError } from 'tier-adapters'; " +
          "import { createRequire } from 'node:module'; " +
          "const cjs = createRequire(import.meta.url)('tier-adapters'); " +
          "process.stdout.write(String(new cjs.TierError('X', 'y') instanceof TierError))",
      ],
      app,
    );
    assert.equal(same, 'true');
  });

  it('calibrates the boundaries from the prebuilt identity in tier-bench, with no Rust toolchain', () => {
    const script = `require('tier-bench').calibrate({ sizes: [{ input: 40, output: 1500 }],
      tiers: ['cli-pool', 'wasm', 'napi', 'rpc'], seconds: 0.2, warmSeconds: 0.05, passes: 1 })
      .then((r) => process.stdout.write(JSON.stringify(r)))`;
    const out = JSON.parse(node(['-e', script], app));
    assert.deepEqual(Object.keys(out.tiers), ['js', 'cli-pool', 'wasm', 'napi', 'rpc']);
    for (const [name, t] of Object.entries(out.tiers)) assert.ok(t.calls > 0 && t.totalUs > 0, `${name}: ${t.skipped}`);
  });

  it('serves a handler from the installed HTTP layer and drains it', async () => {
    const script = `const { createHttpServer, HTTP_LIMITS } = require('tier-adapters/server');
      const { server, shutdown } = createHttpServer((req, res) => res.end('ok'), { maxConnections: 1 });
      server.listen(0, '127.0.0.1', async () => {
        const url = 'http://127.0.0.1:' + server.address().port;
        const body = await (await fetch(url)).text();
        await shutdown();
        process.stdout.write(JSON.stringify({ body, limits: HTTP_LIMITS }));
      });`;
    const out = JSON.parse(node(['-e', script], app));
    assert.equal(out.body, 'ok');
    assert.equal(out.limits.pipelineDepth, 1);
  });

  it('logs JSON lines and records Prometheus series from the installed subpaths', () => {
    const script = `const { createLog } = require('tier-adapters/log');
      const { createRequestMetrics } = require('tier-adapters/prometheus');
      const { Registry } = require('prom-client');
      const log = createLog();
      for (let i = 0; i < 25; i++) log.refused('queue_full', { requestId: String(i) });
      const registry = new Registry();
      const metrics = createRequestMetrics({ registry, buckets: [0.01, 0.1], routes: ['/x', 'other'] });
      metrics.tier = 'js';
      metrics.record('/x', 200, 0.05);
      registry.metrics().then((text) => process.stderr.write(text));`;
    const run = spawnSync(process.execPath, ['-e', script], { cwd: app, env: ENV, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines.length, 20, 'at most 20 refusal lines a second');
    assert.deepEqual(
      [lines[0].level, lines[0].event, lines[0].reason, lines[0].message],
      ['WARN', 'refused', 'queue_full', 'refused (queue_full)'],
    );
    assert.ok(!Number.isNaN(Date.parse(lines[0].timestamp)), lines[0].timestamp);
    assert.match(run.stderr, /^http_requests_total\{route="\/x",status="200",tier="js"\} 1$/m);
    assert.match(run.stderr, /^http_request_duration_seconds_bucket\{le="0.1",route="\/x",tier="js"\} 1$/m);
  });

  it('types both libraries for a TypeScript consumer, ESM and CJS, and catches a wrong call', () => {
    const tsconfig = {
      compilerOptions: {
        module: 'node16',
        moduleResolution: 'node16',
        target: 'es2022',
        strict: true,
        noEmit: true,
        types: ['node'],
        typeRoots: [path.join(ROOT, 'node_modules/@types')],
      },
      include: ['*.mts', '*.cts'],
    };
    fs.writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify(tsconfig));
    fs.writeFileSync(
      path.join(app, 'consumer.mts'),
      `import { createEventLoopTier, createThreadPoolTier, createArrivals, TierError, type Tier } ` +
        `from 'tier-adapters';
import { createHttpServer, httpResponseFor } from 'tier-adapters/server';
import { defineConfig, type BenchConfig } from 'tier-bench';
import { createLog } from 'tier-adapters/log';
import { createRequestMetrics, clusterMetricsClient } from 'tier-adapters/prometheus';
import { Registry } from 'prom-client';
const tier: Tier<string, number> = createEventLoopTier((s: string) => s.length, { maxQueue: 8 });
const pool = createThreadPoolTier(async (s: string) => Buffer.from(s), { concurrency: 4 });
const n: Promise<number> = tier.run('abc', { signal: AbortSignal.timeout(10) });
const b: Promise<Buffer> = pool.run('x');
const arrivals = createArrivals();
const { server, shutdown } = createHttpServer((req, res) => res.end(), {
  pipelineDepth: 1,
  onRefused: () => {},
  arrivals,
});
const err: TierError = new TierError('BAD', 'bad', { status: 400 });
const [status]: [number, string, Record<string, string>] = httpResponseFor(err, { clientErrors: ['BAD'] });
const config: BenchConfig = defineConfig({ title: 't', ` +
        `tiers: [{ name: 'js', command: ({ node }) => [node, 's.js'] }], ` +
        `requests: { description: 'd', paths: ['/'] } });
const log = createLog({ access: true });
const id: string = log.requestId({ headers: {} } as any);
const recorder = createRequestMetrics({ registry: new Registry(), buckets: [0.1], routes: ['/x', 'other'] });
recorder.tier = 'napi';
recorder.record('/x', 200, 0.01);
const scrape: () => Promise<string> = clusterMetricsClient(new Registry());
export { n, b, server, shutdown, err, status, config, id, scrape };
`,
    );
    fs.writeFileSync(
      path.join(app, 'consumer.cts'),
      `import server = require('tier-adapters/server');
import bench = require('tier-bench');
export const cap: number = server.connectionCap(4096, server.openFileLimit());
export const start: Promise<bench.StartedServer> = ` +
        `bench.startTier('js', { config: bench.loadConfig('bench.config.js') });
`,
    );
    const ok = spawnSync(process.execPath, [TSC, '-p', app], { encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stdout);
    fs.writeFileSync(
      path.join(app, 'wrong.mts'),
      "import { createThreadPoolTier } from 'tier-adapters';\n" +
        'export const t = createThreadPoolTier(async (s: string) => s, { maxQueue: 1 });\n',
    );
    const wrong = spawnSync(process.execPath, [TSC, '-p', app], { encoding: 'utf8' });
    fs.rmSync(path.join(app, 'wrong.mts'));
    assert.notEqual(wrong.status, 0);
    assert.match(wrong.stdout, /wrong\.mts.*TS2345/);
  });

  it(
    'runs the commands: tier-bench, tier-bench-compare and create-rust-ladder ' + '(which needs no Rust to generate)',
    () => {
      const bin = (name, ...args) =>
        spawnSync(path.join(app, 'node_modules/.bin', name), args, { cwd: app, env: ENV, encoding: 'utf8' });
      const help = bin('tier-bench', '--help');
      assert.equal(help.status, 0, help.stderr);
      assert.match(help.stdout, /^Usage: tier-bench/);
      const noConfig = bin('tier-bench', '--quick');
      assert.equal(noConfig.status, 2);
      assert.match(noConfig.stderr, /bench\.config\.js: no such configuration/);
      assert.equal(bin('tier-bench-compare').status, 2);
      const made = bin('create-rust-ladder', 'word-count', '--dir', path.join(app, 'service'));
      assert.equal(made.status, 0, made.stderr);
      // No tool runs in the project unless asked (--format): the Rust is left as the template lays it out.
      assert.match(
        made.stdout,
        /rust\/word-count\/ made \(the Rust as the template lays it out: cargo fmt, or --format/,
      );
      const napi = fs.readFileSync(path.join(app, 'service/rust/word-count/napi/src/lib.rs'), 'utf8');
      assert.match(napi, /^call::export!\(\s*word_count_sync,\s*word_count,\s*input,/m);
    },
  );
});
