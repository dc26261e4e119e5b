'use strict';

// What `make package` puts in dist/, installed the way users install it:
// the npm tarballs into a fresh project with no Rust toolchain on PATH (CJS,
// ESM and a TypeScript consumer), each platform's addon binary checked for
// what can be checked here, the static executables checked by ldd and run,
// `cargo install --path` for both binaries.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const addon = require('@qr-toolkit/napi');
const { startServer, ROOT } = require('../helpers/servers');
const { get, qrcodePath } = require('../helpers/http');
const { decodeQrPng } = require('../helpers/decode');
const { wasiRuntimePins } = require('../../scripts/wasi-runtime-pins');
const { VALID_TEXTS } = require('../helpers/fixtures');

const DIST = path.join(ROOT, 'dist');
const MUSL = 'x86_64-unknown-linux-musl';
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const TEXT = 'installed from dist/ 🦀';
// napi-rs platform name -> what its binary must be.
const NATIVE_PLATFORMS = {
  'linux-x64-gnu': { machine: 'Advanced Micro Devices X86-64', cpu: 'x64', libc: 'glibc' },
  'linux-x64-musl': { machine: 'Advanced Micro Devices X86-64', cpu: 'x64', libc: 'musl' },
  'linux-arm64-gnu': { machine: 'AArch64', cpu: 'arm64', libc: 'glibc' },
  'linux-arm64-musl': { machine: 'AArch64', cpu: 'arm64', libc: 'musl' },
};
const PLATFORMS = [...Object.keys(NATIVE_PLATFORMS), 'wasm32-wasi'];
const TEXTS = VALID_TEXTS.map(([, t]) => t);
/** Whether dotted version `a` <= `b`. */
const versionAtMost = (a, b) => {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < Math.max(x.length, y.length); i++)
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  return true;
};

/** PATH without any Rust toolchain directory: what a Node user's machine has. */
const PATH_WITHOUT_RUST = process.env.PATH.split(':')
  .filter((dir) => !['cargo', 'rustc', 'rustup'].some((t) => fs.existsSync(path.join(dir, t))))
  .join(':');
const ENV = { ...process.env, PATH: PATH_WITHOUT_RUST };
// Debian's arm64 node (glibc) and PyPI's musl nodes, run by musl's own loader
// (scripts/setup.sh puts them under target/).
const ARM64_ROOT = path.join(ROOT, 'target/arm64-root');
const MUSL_NODE = {
  x64: [
    path.join(ROOT, 'target/musl-root/x64/usr/lib/x86_64-linux-musl/libc.so'),
    path.join(ROOT, 'target/musl-root/x64/node/bin/node'),
  ],
  arm64: [
    'qemu-aarch64',
    path.join(ROOT, 'target/musl-root/arm64/usr/lib/aarch64-linux-musl/libc.so'),
    path.join(ROOT, 'target/musl-root/arm64/node/bin/node'),
  ],
};

const tarball = (prefix) => {
  const name = fs.readdirSync(DIST).find((f) => f.startsWith(prefix) && f.endsWith('.tgz'));
  assert.ok(name, `${prefix}*.tgz in dist/ (run \`make package\`)`);
  return path.join(DIST, name);
};

const temporaryDirs = [];
/**
 * A fresh npm project with the addon installed as from the registry: the
 * main package, whose optionalDependencies npm resolves to the platform
 * tarballs in dist/ (npm `overrides`) and filters by os/cpu/libc, as it
 * does for a user. `flags` are npm's own --cpu/--libc, to install as on
 * another machine; `extra` are more tarballs to install.
 */
function installProject(flags = [], extra = []) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-dist-app-'));
  temporaryDirs.push(dir);
  // A tarball in `extra` is a direct dependency: npm refuses an override for it too.
  // The WASI package's own dependencies at the versions package-lock.json
  // holds, as scripts/package.sh put them in npm's cache.
  const overrides = {
    ...wasiRuntimePins(),
    ...Object.fromEntries(
      PLATFORMS.map((p) => [`@qr-toolkit/napi-${p}`, `file:${tarball(`qr-toolkit-napi-${p}-`)}`]).filter(
        ([, spec]) => !extra.includes(spec.slice(5)),
      ),
    ),
  };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'app', private: true, overrides }));
  const install = spawnSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--offline', ...flags, tarball('qr-toolkit-napi-0'), ...extra],
    { cwd: dir, env: ENV, encoding: 'utf8' },
  );
  assert.equal(install.status, 0, install.stderr);
  return dir;
}

/** Runs `moduleName` (the addon's main package or one platform package) on `command`, in `cwd`. */
function runAddon(command, moduleName, cwd, env = ENV) {
  const script =
    `const addon = require(${JSON.stringify(moduleName)});
    const texts = JSON.parse(process.argv[1]);
    const failure = (f) => { try { f(); } catch (e) { return [e.code, e.message]; } };
    Promise.all(texts.map((t) => addon.generateQrCode(t))).then(async (later) => process.stdout.write(JSON.stringify({
      arch: process.arch,
      target: addon.__napiBindingTarget,
      pngs: texts.map((t) => addon.generateQrCodeSync(t).toString('base64')),
      later: later.map((b) => b.toString('base64')),
      errors: [failure(() => addon.generateQrCodeSync('')), failure(() => addon.generateQrCodeSync('x'.repeat(513)))],
      asyncErrors: await Promise.all(['', 'x'.repeat(513)].map((t) => ` +
    `addon.generateQrCode(t).catch((e) => [e.code, e.message]))),
    })));`;
  const [file, ...args] = command;
  return JSON.parse(
    execFileSync(file, [...args, '--no-warnings', '-e', script, JSON.stringify(TEXTS)], {
      cwd,
      env,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    }),
  );
}

/** What every build must give: this machine's native bytes, and the core's error codes, sync and async. */
function assertSameAsNative(out, label) {
  TEXTS.forEach((t, i) => {
    const native = addon.generateQrCodeSync(t);
    assert.ok(Buffer.from(out.pngs[i], 'base64').equals(native), `${label} sync: ${t}`);
    assert.ok(Buffer.from(out.later[i], 'base64').equals(native), `${label} async: ${t}`);
  });
  const errors = [
    ['EMPTY_TEXT', 'text must not be empty'],
    ['TEXT_TOO_LONG', 'text must be <= 512 bytes'],
  ];
  assert.deepEqual(out.errors, errors, label);
  assert.deepEqual(out.asyncErrors, errors, label);
}

describe('dist/ (make package)', () => {
  let app;
  /** platform -> a project installed with that platform's --cpu/--libc. */
  const projects = {};
  before(() => {
    // This machine's install, and the Wasm package.
    app = installProject([], [tarball('qr-toolkit-wasm-')]);
    for (const [platform, want] of Object.entries(NATIVE_PLATFORMS))
      projects[platform] = installProject([`--cpu=${want.cpu}`, `--libc=${want.libc}`]);
    // How napi-rs documents installing the WASI build: its package's cpu is wasm32.
    projects['wasm32-wasi'] = installProject(['--cpu=wasm32']);
  });
  after(() => {
    for (const dir of temporaryDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('installs both npm packages where no Rust toolchain is on PATH', () => {
    assert.notEqual(
      spawnSync('sh', ['-c', 'command -v cargo || command -v rustc'], { env: ENV }).status,
      0,
      'no cargo or rustc on PATH',
    );
    const packed = (name) =>
      fs.readdirSync(path.join(app, 'node_modules/@qr-toolkit', name), { recursive: true }).sort();
    // napi-rs's layout: the binary comes from the platform package, listed as optional.
    assert.ok(!packed('napi').some((f) => f.endsWith('.node')), 'no binary in the main package');
    assert.deepEqual(
      packed('napi-linux-x64-gnu').filter((f) => f.endsWith('.node')),
      ['qr-napi.linux-x64-gnu.node'],
    );
    const main = JSON.parse(fs.readFileSync(path.join(app, 'node_modules/@qr-toolkit/napi/package.json'), 'utf8'));
    assert.deepEqual(
      Object.keys(main.optionalDependencies).sort(),
      PLATFORMS.map((p) => `@qr-toolkit/napi-${p}`).sort(),
    );
    for (const f of ['index.js', 'index.mjs', 'index.d.ts', 'index.d.mts']) assert.ok(packed('napi').includes(f), f);
    for (const f of [
      'node.mjs',
      'node/qr_wasm.js',
      'node/qr_wasm_bg.wasm',
      'web/qr_wasm.js',
      'web/qr_wasm_bg.wasm',
      'web/package.json',
    ])
      assert.ok(packed('wasm').includes(f), f);
  });

  it('installs exactly the platform package that fits the machine, as npm picks optional dependencies', () => {
    const installed = (dir) =>
      fs.readdirSync(path.join(dir, 'node_modules/@qr-toolkit')).filter((name) => name.startsWith('napi-'));
    assert.deepEqual(installed(app), ['napi-linux-x64-gnu']);
    for (const platform of PLATFORMS) assert.deepEqual(installed(projects[platform]), [`napi-${platform}`], platform);
  });

  it('loads both from CommonJS and ESM, with the same bytes as the repository build', async () => {
    const expected = addon.generateQrCodeSync(TEXT);
    const cjs =
      `const napi = require('@qr-toolkit/napi'); const wasm = require('@qr-toolkit/wasm');
      process.stdout.write(JSON.stringify([` +
      `Buffer.from(napi.generateQrCodeSync(${JSON.stringify(TEXT)})).toString('base64'), ` +
      `Buffer.from(wasm.generateQrCode(${JSON.stringify(TEXT)})).toString('base64')]));`;
    const esm =
      `import { generateQrCodeSync, generateQrCode as napiAsync } from '@qr-toolkit/napi'; ` +
      `import { generateQrCode } from '@qr-toolkit/wasm';
      const t = ${JSON.stringify(TEXT)}; const a = await napiAsync(t);
      process.stdout.write(JSON.stringify([generateQrCodeSync(t), a, generateQrCode(t)].map((b) => ` +
      `Buffer.from(b).toString('base64'))));`;
    for (const [kind, args] of [
      ['cjs', ['-e', cjs]],
      ['esm', ['--input-type=module', '-e', esm]],
    ]) {
      const out = JSON.parse(execFileSync(process.execPath, args, { cwd: app, env: ENV, encoding: 'utf8' }));
      for (const b64 of out) assert.ok(Buffer.from(b64, 'base64').equals(expected), kind);
    }
    // The exports maps pick an entry per loader: ESM files for `import`, CommonJS for `require`.
    const resolved = (kind, name) =>
      execFileSync(
        process.execPath,
        kind === 'esm'
          ? ['--input-type=module', '-e', `process.stdout.write(import.meta.resolve('${name}'))`]
          : ['-e', `process.stdout.write(require.resolve('${name}'))`],
        { cwd: app, encoding: 'utf8' },
      );
    assert.match(resolved('esm', '@qr-toolkit/napi'), /@qr-toolkit\/napi\/index\.mjs$/);
    assert.match(resolved('cjs', '@qr-toolkit/napi'), /@qr-toolkit\/napi\/index\.js$/);
    assert.match(resolved('esm', '@qr-toolkit/wasm'), /@qr-toolkit\/wasm\/node\.mjs$/);
    assert.match(resolved('cjs', '@qr-toolkit/wasm'), /@qr-toolkit\/wasm\/node\/qr_wasm\.js$/);
    assert.match(resolved('esm', '@qr-toolkit/wasm/web'), /@qr-toolkit\/wasm\/web\/qr_wasm\.js$/);
    assert.equal((await decodeQrPng(expected)).text, TEXT);
    // The web build in the package is the one the page serves (test/contract/browser.test.js runs it in Chromium).
    assert.ok(
      fs
        .readFileSync(path.join(app, 'node_modules/@qr-toolkit/wasm/web/qr_wasm_bg.wasm'))
        .equals(fs.readFileSync(path.join(ROOT, 'qr_wasm/pkg-web/qr_wasm_bg.wasm'))),
    );
  });

  it('runs the installed x64 glibc addon with the native bytes and errors, sync and async', () => {
    const out = runAddon([process.execPath], '@qr-toolkit/napi', app);
    assert.equal(out.target, 'native');
    assertSameAsNative(out, 'linux-x64-gnu');
  });

  it('runs the WASI build, as the fallback and forced, with the native bytes and errors', () => {
    // No native package installed (--cpu=wasm32): the loader falls back to WASI by itself.
    const fallback = runAddon([process.execPath], '@qr-toolkit/napi', projects['wasm32-wasi']);
    assert.equal(fallback.target, 'wasm32-wasi');
    assertSameAsNative(fallback, 'wasm32-wasi fallback');
    // Next to the native one, only when forced.
    const both = installProject([], [tarball('qr-toolkit-napi-wasm32-wasi-'), '--force']);
    assert.equal(runAddon([process.execPath], '@qr-toolkit/napi', both).target, 'native');
    const forced = runAddon([process.execPath], '@qr-toolkit/napi', both, { ...ENV, NAPI_RS_FORCE_WASI: 'true' });
    assert.equal(forced.target, 'wasm32-wasi');
    assertSameAsNative(forced, 'wasm32-wasi forced');
  });

  it('runs the musl addons under a musl node, x64 and (with qemu-user) arm64', () => {
    // napi-rs's loader tells musl from glibc by reading /usr/bin/ldd, which is
    // glibc's on this machine: the platform packages are loaded directly.
    for (const [platform, command] of [
      ['linux-x64-musl', MUSL_NODE.x64],
      ['linux-arm64-musl', MUSL_NODE.arm64],
    ]) {
      const out = runAddon(command, `@qr-toolkit/napi-${platform}`, projects[platform]);
      assert.equal(out.arch, NATIVE_PLATFORMS[platform].cpu, platform);
      assertSameAsNative(out, platform);
    }
  });

  it('runs the arm64 glibc addon under qemu-user with an arm64 node, through the main package', () => {
    // Debian's nodejs:arm64, unpacked by scripts/setup.sh; qemu-aarch64 -L maps its libraries.
    const out = runAddon(
      ['qemu-aarch64', '-L', ARM64_ROOT, path.join(ARM64_ROOT, 'usr/bin/node')],
      '@qr-toolkit/napi',
      projects['linux-arm64-gnu'],
    );
    assert.deepEqual([out.arch, out.target], ['arm64', 'native']);
    assertSameAsNative(out, 'linux-arm64-gnu');
  });

  it('says "Cannot find native binding" when no platform package is installed', () => {
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-dist-bare-'));
    try {
      fs.writeFileSync(path.join(bare, 'package.json'), '{ "name": "bare", "private": true }');
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball('qr-toolkit-napi-0')], {
        cwd: bare,
        env: ENV,
        stdio: 'pipe',
      });
      const load = spawnSync(process.execPath, ['-e', "require('@qr-toolkit/napi')"], {
        cwd: bare,
        env: ENV,
        encoding: 'utf8',
      });
      assert.notEqual(load.status, 0);
      assert.match(load.stderr, /Cannot find native binding/);
    } finally {
      fs.rmSync(bare, { recursive: true, force: true });
    }
  });

  it('builds each platform package for its machine and libc, exporting the napi entry point', () => {
    for (const [platform, want] of Object.entries(NATIVE_PLATFORMS)) {
      const dir = path.join(projects[platform], 'node_modules/@qr-toolkit', `napi-${platform}`);
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
      assert.deepEqual([pkg.os, pkg.cpu, pkg.libc], [['linux'], [want.cpu], [want.libc]], platform);
      const node = path.join(dir, pkg.main);
      const readelf = (...args) => execFileSync('readelf', [...args, node], { encoding: 'utf8' });
      assert.match(readelf('-h'), new RegExp(`Machine:\\s+${want.machine}`), platform);
      const needed = [...readelf('-d').matchAll(/\(NEEDED\)\s+Shared library: \[(.+)\]/g)].map((m) => m[1]);
      // glibc builds link libc.so.6; musl builds link musl's libc.so and nothing of glibc.
      if (want.libc === 'glibc') assert.ok(needed.includes('libc.so.6'), `${platform}: ${needed}`);
      else assert.deepEqual(needed, ['libc.so'], platform);
      const symbols = readelf('--dyn-syms', '-W');
      assert.match(symbols, /\bFUNC\s+GLOBAL\s+DEFAULT\s+\d+ napi_register_module_v1$/m, platform);
      // Linked against glibc 2.17's symbols (zig, `.2.17`): it loads on any
      // glibc from 2.17 on. Weak symbols newer than that are looked up at run time.
      const required = [...symbols.matchAll(/^\s*\d+:.*\bGLOBAL\s+DEFAULT\s+UND\s+\S+@GLIBC_([\d.]+)/gm)].map(
        (m) => m[1],
      );
      if (want.libc === 'glibc')
        assert.ok(
          required.length > 0 && required.every((v) => versionAtMost(v, '2.17')),
          `${platform} needs glibc ${required.filter((v) => !versionAtMost(v, '2.17'))}`,
        );
    }
  });

  it('types both packages for a TypeScript consumer, ESM and CJS, and catches a wrong call', () => {
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
      `import { generateQrCode, generateQrCodeSync } from '@qr-toolkit/napi';
import { generateQrCode as inWasm } from '@qr-toolkit/wasm';
const sync: Buffer = generateQrCodeSync('a');
const later: Promise<Buffer> = generateQrCode('b', AbortSignal.timeout(1000));
const fromWasm: Uint8Array = inWasm('c');
export { sync, later, fromWasm };
`,
    );
    fs.writeFileSync(
      path.join(app, 'consumer.cts'),
      `import napi = require('@qr-toolkit/napi');
import wasm = require('@qr-toolkit/wasm');
export const png: Buffer = napi.generateQrCodeSync('a');
export const raw: Uint8Array = wasm.generateQrCode('b');
`,
    );
    const ok = spawnSync(process.execPath, [TSC, '-p', app], { encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stdout);
    fs.writeFileSync(
      path.join(app, 'wrong.mts'),
      "import { generateQrCodeSync } from '@qr-toolkit/napi';\nexport const png: string = generateQrCodeSync(42);\n",
    );
    const wrong = spawnSync(process.execPath, [TSC, '-p', app], { encoding: 'utf8' });
    fs.rmSync(path.join(app, 'wrong.mts'));
    assert.notEqual(wrong.status, 0);
    assert.match(wrong.stdout, /wrong\.mts.*TS2345/);
  });

  it('ships qr_server and qr_cli as static executables that run', async () => {
    for (const bin of ['qr_server', 'qr_cli']) {
      const file = path.join(DIST, `${bin}-${MUSL}`);
      const ldd = spawnSync('ldd', [file], { encoding: 'utf8' });
      assert.match(ldd.stdout + ldd.stderr, /statically linked|not a dynamic executable/, `${bin}: ${ldd.stdout}`);
    }
    assert.ok(
      execFileSync(path.join(DIST, `qr_cli-${MUSL}`), ['-'], { input: TEXT }).equals(addon.generateQrCodeSync(TEXT)),
    );
    const server = await startServer(path.join(DIST, `qr_server-${MUSL}`), ['--port', '0']);
    try {
      const res = await get(server.url, qrcodePath(TEXT));
      assert.equal(res.status, 200);
      assert.ok(res.body.equals(addon.generateQrCodeSync(TEXT)));
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it('installs qr_cli and qr_server with `cargo install --path`', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-cargo-install-'));
    try {
      for (const crate of ['qr_cli', 'qr_server']) {
        // The workspace's target directory: what `make build` compiled is reused.
        execFileSync('cargo', ['install', '--quiet', '--locked', '--path', crate, '--root', root], {
          cwd: ROOT,
          env: { ...process.env, CARGO_TARGET_DIR: path.join(ROOT, 'target') },
          stdio: 'pipe',
        });
      }
      assert.ok(
        execFileSync(path.join(root, 'bin/qr_cli'), ['-'], { input: TEXT }).equals(addon.generateQrCodeSync(TEXT)),
      );
      assert.match(execFileSync(path.join(root, 'bin/qr_server'), ['--help'], { encoding: 'utf8' }), /--port/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
