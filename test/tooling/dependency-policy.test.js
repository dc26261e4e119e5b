'use strict';

// The dependency policy, offline: npm's production tree (from
// package-lock.json) against scripts/npm-production-allow.txt and the
// allowed licenses (scripts/npm-policy.js), and that the checker catches
// what it is for: a package nobody allowed, a license outside the set, a
// package without the registry's integrity.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { productionTree, violations, readAllowList } = require('../../scripts/npm-policy');

describe('npm production tree policy', () => {
  it('holds only allowed packages, under allowed licenses, each with its sha512', () => {
    const tree = productionTree();
    assert.ok(tree.size > 50, `${tree.size} packages: the lockfile was not read`);
    assert.ok(tree.has('express@5.3.0') || [...tree.values()].some((e) => e.name === 'express'), 'express is node-server\'s');
    assert.ok(![...tree.values()].some((e) => e.name === 'typescript'), 'a dev dependency counted as production');
    assert.deepEqual(violations(tree, readAllowList()), []);
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
