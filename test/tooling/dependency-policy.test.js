'use strict';

// The dependency policy, offline: npm's production tree (from
// package-lock.json) against scripts/npm-production-allow.txt and the
// allowed licenses (scripts/npm-policy.js); the Rust workspace's
// dependencies (Cargo.lock) from crates.io, with their checksums, under
// allowed licenses, none banned (scripts/cargo-policy.js); and that each
// checker catches what it is for.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const {
  productionTree,
  violations,
  foreignSources,
  registryProblems,
  readAllowList,
} = require('../../scripts/npm-policy');
const cargo = require('../../scripts/cargo-policy');

describe('npm production tree policy', () => {
  it('holds only allowed packages, under allowed licenses, each with its sha512', () => {
    const tree = productionTree();
    assert.ok(tree.size > 50, `${tree.size} packages: the lockfile was not read`);
    assert.ok(
      tree.has('express@5.3.0') || [...tree.values()].some((e) => e.name === 'express'),
      "express is node-server's",
    );
    assert.ok(![...tree.values()].some((e) => e.name === 'typescript'), 'a dev dependency counted as production');
    assert.deepEqual(violations(tree, readAllowList()), []);
    assert.deepEqual(foreignSources(), []);
    assert.deepEqual(registryProblems(), []);
  });

  it('holds the project to the npm registry, scoped registries included', () => {
    assert.deepEqual(registryProblems('# nothing\n'), ['.npmrc: no registry=https://registry.npmjs.org/']);
    assert.deepEqual(registryProblems('registry = https://registry.npmjs.org/\n'), []);
    assert.deepEqual(registryProblems('registry=https://registry.npmjs.org/\n@x:registry=https://evil.example/\n'), [
      '.npmrc: @x:registry=https://evil.example/, not https://registry.npmjs.org/',
    ]);
  });

  it('names a package of any kind resolved from past the npm registry', () => {
    const lock = {
      packages: {
        '': { name: 'root' },
        'node_modules/a': { version: '1.0.0', resolved: 'https://registry.npmjs.org/a/-/a-1.0.0.tgz' },
        'node_modules/b': { version: '1.0.0', dev: true, resolved: 'https://evil.example/b-1.0.0.tgz' },
        'node_modules/c': { version: '1.0.0', resolved: 'git+ssh://git@github.com/x/c.git#0123' },
        'node_modules/d': { version: '1.0.0' },
        'node-server': { name: 'node-server', resolved: 'node-server', link: true },
      },
    };
    assert.deepEqual(foreignSources(lock), [
      'node_modules/b: resolved from https://evil.example/b-1.0.0.tgz, not https://registry.npmjs.org/',
      'node_modules/c: resolved from git+ssh://git@github.com/x/c.git#0123, not https://registry.npmjs.org/',
    ]);
  });

  it('names a package nobody allowed, a license outside the set and a missing integrity', () => {
    const lock = {
      packages: {
        '': { name: 'root' },
        'node_modules/express': { version: '5.3.0', license: 'MIT', integrity: 'sha512-x' },
        'node_modules/sneaky': { version: '1.0.0', license: 'MIT', integrity: 'sha512-y' },
        'node_modules/copyleft': { version: '2.0.0', license: 'GPL-3.0', integrity: 'sha512-z' },
        'node_modules/from-git': { version: '0.1.0', license: 'MIT' },
        'node_modules/dev-only': { version: '1.0.0', license: 'GPL-3.0', dev: true },
      },
    };
    const found = violations(productionTree(lock), new Set(['express', 'copyleft', 'from-git', 'gone']));
    assert.deepEqual(found, [
      'sneaky@1.0.0: not in scripts/npm-production-allow.txt',
      'copyleft@2.0.0: license "GPL-3.0" is not allowed',
      'from-git@0.1.0: no sha512 integrity',
      'gone: allowed but no longer in the production tree (remove its line)',
    ]);
  });
});

describe('Cargo dependency policy', () => {
  it('holds every dependency of the workspace to crates.io, its checksum, the allowed licenses and no ban', () => {
    const workspace = cargo.readWorkspace();
    const names = new Set(workspace.metadata.packages.map((p) => p.name));
    assert.ok(names.has('axum') && names.has('napi'), 'the lockfile was not read');
    assert.deepEqual(cargo.violations(workspace), []);
  });

  it('reads SPDX expressions: OR takes one allowed, AND needs all, WITH and the old slash', () => {
    assert.equal(cargo.satisfies('MIT OR Apache-2.0'), true);
    assert.equal(cargo.satisfies('MIT/Apache-2.0'), true);
    assert.equal(cargo.satisfies('GPL-3.0 OR MIT'), true);
    assert.equal(cargo.satisfies('(MIT OR Apache-2.0) AND Unicode-3.0'), true);
    assert.equal(cargo.satisfies('Apache-2.0 WITH LLVM-exception OR GPL-3.0'), true);
    assert.equal(cargo.satisfies('MIT AND GPL-3.0'), false);
    assert.equal(cargo.satisfies('(MIT OR Apache-2.0) AND LGPL-2.1'), false);
    assert.equal(cargo.satisfies('GPL-2.0 WITH Classpath-exception-2.0'), false);
    assert.throws(() => cargo.satisfies('(MIT OR Apache-2.0'), /unbalanced/);
  });

  it('names a git source, a missing checksum, a license outside the set and a banned crate', () => {
    const ours = 'path+file:///repo#qr_lib@0.1.0';
    const metadata = {
      workspace_members: [ours],
      packages: [
        { id: ours, name: 'qr_lib', version: '0.1.0', source: null, license: 'LicenseRef-ours' },
        { id: 'a', name: 'fine', version: '1.0.0', source: cargo.CRATES_IO, license: 'MIT' },
        { id: 'b', name: 'forked', version: '0.2.0', source: 'git+https://example.com/forked#abc', license: 'MIT' },
        { id: 'c', name: 'copyleft', version: '3.0.0', source: cargo.CRATES_IO, license: 'GPL-3.0-only' },
        { id: 'd', name: 'openssl-sys', version: '0.9.0', source: cargo.CRATES_IO, license: 'MIT' },
      ],
    };
    const checksums = new Map([
      ['fine 1.0.0', 'x'],
      ['copyleft 3.0.0', 'y'],
      ['openssl-sys 0.9.0', 'z'],
    ]);
    assert.deepEqual(cargo.violations({ metadata, checksums }), [
      'forked@0.2.0: from git+https://example.com/forked#abc, not crates.io',
      'forked@0.2.0: no checksum in Cargo.lock',
      'copyleft@3.0.0: license "GPL-3.0-only" is not allowed',
      'openssl-sys@0.9.0: banned (links the system OpenSSL; the shipped executables are static)',
    ]);
  });
});
