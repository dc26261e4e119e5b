'use strict';

// Each published entry point's names are listed once, in its CommonJS file;
// its ES module entry and its types must name the same values. A name added
// to one and not the others fails here, with the entry and the name.

const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const ts = require('typescript');

const ROOT = path.join(__dirname, '..', '..');
const PACKAGES = ['tier-adapters', 'bench'];

/** `[name, { require, import, types }]` of a package's entry points, as absolute paths. */
function entries(dir) {
  const pkg = require(path.join(ROOT, dir, 'package.json'));
  return Object.entries(pkg.exports)
    .filter(([, target]) => typeof target === 'object')
    .map(([subpath, target]) => [
      path.posix.join(pkg.name, subpath),
      Object.fromEntries(Object.entries(target).map(([kind, file]) => [kind, path.join(ROOT, dir, file)])),
    ]);
}

/** The values (not the types) a declaration file exports. */
function declaredValues(file) {
  const program = ts.createProgram([file], { noEmit: true, skipLibCheck: true, types: ['node'] });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(file));
  return checker
    .getExportsOfModule(module)
    .filter((symbol) => symbol.flags & ts.SymbolFlags.Value)
    .map((symbol) => symbol.name)
    .sort();
}

describe('published entry points', () => {
  for (const dir of PACKAGES) {
    for (const [name, files] of entries(dir)) {
      it(`${name}: the ES module entry and the types name what the CommonJS entry exports`, async () => {
        const names = Object.keys(require(files.require)).sort();
        assert.ok(names.length > 0, `${name} exports nothing`);
        const esm = Object.keys(await import(pathToFileURL(files.import).href))
          .filter((n) => n !== 'default')
          .sort();
        assert.deepEqual(
          esm,
          names,
          `${path.relative(ROOT, files.import)} against ${path.relative(ROOT, files.require)}`,
        );
        assert.deepEqual(declaredValues(files.types), names, `${path.relative(ROOT, files.types)}`);
      });
    }
  }

  it("counts a declaration file's values, not its types", () => {
    const file = path.join(ROOT, 'tier-adapters/index.d.ts');
    assert.ok(declaredValues(file).includes('createEventLoopTier'));
    assert.ok(!declaredValues(file).includes('RunOptions'), 'a type is not a value');
  });
});
