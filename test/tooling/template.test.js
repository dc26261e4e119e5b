'use strict';

// create-rust-ladder's template is a real project, for a function named
// `ladder-example` (`make lint` formats and lints it where it sits, `make
// test-rust` runs its tests), and the QR ladder's bindings compile its
// binding files: one copy of the pattern, which rendering renames.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { render } = require('../../scaffold/lib/render');
const { spellings } = require('../../scaffold/lib/names');
const { ROOT } = require('../helpers/servers');

const ORIGINAL = { fromRequire: "'../../../src/render.js'", fromExport: 'renderMarkdown' };
const read = (file) => fs.readFileSync(path.join(ROOT, file), 'utf8');

describe('create-rust-ladder template', () => {
  it('renames every spelling of the placeholder, in file names and contents', () => {
    const files = render('ladder', { ...spellings('csv-to-json'), ...ORIGINAL });
    for (const [file, text] of files) {
      assert.doesNotMatch(file, /ladder[-_]?example/i, file);
      assert.doesNotMatch(text, /ladder[-_ ]?example/i, file);
    }
    assert.match(files.get('napi/src/lib.rs'), /^use csv_to_json_core::\{csv_to_json as core_function/m);
    assert.match(files.get('napi/package.json'), /"name": "csv-to-json-napi"/);
    assert.match(files.get('js/tiers.js'), /reference\.csvToJson\(input\)/);
    assert.match(files.get('Cargo.toml'), /\[profile\.release\.package\.csv_to_json_cli\]/);
    // A file name: the example service's function.
    assert.deepEqual([...render('service', spellings('csv-to-json')).keys()].sort(), [
      '.gitignore',
      'README.md',
      'src/csv-to-json.js',
    ]);
  });

  it("renames in one pass: a spelling of the team's name may contain another of the placeholder's", () => {
    // `myLadderExample` holds `LadderExample`: renamed in turn, it would become `myMyLadderExample`.
    const files = render('ladder', { ...spellings('my-ladder-example'), ...ORIGINAL });
    assert.match(files.get('js/tiers.js'), /reference\.myLadderExample\(input\)/);
    assert.doesNotMatch([...files.values()].join('\n'), /myMyLadderExample|MyMyLadderExample|my_my_ladder/);
  });

  it('leaves out what the template builds where it sits (what its _gitignore names)', () => {
    const templates = fs.mkdtempSync(path.join(os.tmpdir(), 'template-'));
    try {
      fs.cpSync(path.join(ROOT, 'scaffold/template'), templates, { recursive: true });
      const built = [
        'target/release/ladder_example_cli',
        'napi/index.js',
        'napi/x.linux-x64-gnu.node',
        'wasm/pkg/a.js',
      ];
      for (const file of built) {
        fs.mkdirSync(path.dirname(path.join(templates, 'ladder', file)), { recursive: true });
        fs.writeFileSync(path.join(templates, 'ladder', file), 'built');
      }
      const files = render('ladder', { ...spellings('csv-to-json'), ...ORIGINAL }, templates);
      assert.deepEqual(
        [...files.keys()].filter((file) => /target|index\.js|\.node$|pkg/.test(file)),
        [],
      );
      assert.ok(files.has('napi/src/lib.rs') && files.has('.gitignore'));
    } finally {
      fs.rmSync(templates, { recursive: true, force: true });
    }
  });

  it("writes the lockfile in cargo's order: the first build of a ladder leaves it as it is", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'template-lock-'));
    try {
      // zeta_fn_* sort after every dependency, where ladder_example_* sort among them.
      for (const [file, text] of render('ladder', { ...spellings('zeta-fn'), ...ORIGINAL })) {
        fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        fs.writeFileSync(path.join(dir, file), text);
      }
      const before = fs.readFileSync(path.join(dir, 'Cargo.lock'), 'utf8');
      const run = spawnSync('cargo', ['metadata', '--offline', '--format-version', '1'], {
        cwd: dir,
        encoding: 'utf8',
      });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(fs.readFileSync(path.join(dir, 'Cargo.lock'), 'utf8'), before);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("requires the team's function where the template requires its own example", () => {
    const reference = render('ladder', { ...spellings('csv-to-json'), ...ORIGINAL }).get('js/reference.js');
    assert.match(
      reference,
      /^const \{ renderMarkdown: original \} = require\('\.\.\/\.\.\/\.\.\/src\/render\.js'\);$/m,
    );
    assert.doesNotMatch(reference, /service\/src/);
    assert.throws(() => render('ladder', spellings('csv-to-json')), /needs fromRequire and fromExport/);
  });

  it("the QR ladder's bindings compile the template's binding files", () => {
    const shared = {
      'qr_napi/src/lib.rs': ['napi/src/call.rs', 'napi/src/task.rs'],
      'qr_ffi/src/lib.rs': ['ffi/src/boundary.rs'],
      'qr_wasm/src/lib.rs': ['wasm/src/js_error.rs'],
      'qr_cli/src/main.rs': ['cli/src/serve.rs'],
    };
    for (const [crate, files] of Object.entries(shared)) {
      const source = read(crate);
      for (const file of files) {
        const attribute = `#[path = "../../scaffold/template/ladder/${file}"]`;
        assert.ok(source.includes(attribute), `${crate} has no ${attribute}`);
        assert.ok(fs.existsSync(path.join(ROOT, path.dirname(crate), '../../scaffold/template/ladder', file)), file);
      }
    }
    for (const crate of ['qr_napi/src', 'qr_ffi/src', 'qr_wasm/src', 'qr_cli/src']) {
      // Nothing beside them re-implements what they share: no second catch at the boundary.
      for (const file of fs.readdirSync(path.join(ROOT, crate))) {
        assert.doesNotMatch(read(`${crate}/${file}`), /catch_unwind|Reflect::set/, `${crate}/${file}`);
      }
    }
  });

  it("serves through tier-adapters' HTTP layer, as node-server does, with no server settings of its own", () => {
    const files = render('ladder', { ...spellings('csv-to-json'), ...ORIGINAL });
    const httpLayer = /\{[^}]*\bcreateHttpServer,[^}]*\} = require\('tier-adapters\/server'\)/;
    assert.match(files.get('js/server.js'), httpLayer);
    assert.match(read('node-server/server.js'), httpLayer);
    for (const [file, text] of files) {
      if (!file.endsWith('.js')) continue;
      assert.doesNotMatch(text, /\b(keepAliveTimeout|headersTimeout|requestTimeout|createServer|app\.listen)\b/, file);
    }
  });
});
