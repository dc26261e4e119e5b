'use strict';

// create-rust-ladder's template is the worked example's pattern, kept in
// step: its napi binding is qr_napi and its C ABI qr_ffi with the names
// changed, its Wasm binding converts errors the same way, and its service is
// served by the HTTP layer node-server uses, through the tier-adapters
// package rather than a copy.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { render } = require('../../scaffold/lib/render');
const { spellings } = require('../../scaffold/lib/names');
const { ROOT } = require('../helpers/servers');

// The template rendered for the QR function's own name.
const NAMES = spellings('generate-qr-code');
const TEMPLATE = render('ladder', { ...NAMES, fromRequire: "'../src/qr.js'", fromExport: 'generateQrCode' });
const read = (file) => fs.readFileSync(path.join(ROOT, file), 'utf8');

// qr_napi's names, and the template's for the same things.
const RENAMES = [
  [/use qr_lib::QrError;/g, 'use generate_qr_code_core::Error as CoreError;'],
  [/\bqr_lib::/g, 'generate_qr_code_core::'],
  [/\bQrError\b/g, 'CoreError'],
  [/\bFailure::Qr\b/g, 'Failure::Core'],
  [/^(\s*)Qr\(/gm, '$1Core('],
  [/\bgenerate_task\b/g, 'generate_qr_code_task'],
  [/\bGenerateQrCode\b/g, 'GenerateQrCodeTask'],
  [/qr_napi panicked/g, 'generate_qr_code_napi panicked'],
  [/\btext\b/g, 'input'],
  [/\bpng_buffer\b/g, 'output_buffer'],
  [/\bpng\b/g, 'output'],
];

// qr_ffi's names, and the template's for the same things.
const FFI_RENAMES = [
  [/\bqr_lib::/g, 'generate_qr_code_core::'],
  [/\bQR_OK\b/g, 'OK'],
  [/\bQR_PANIC\b/g, 'PANIC'],
  [/\bqr_generate\b/g, 'generate_qr_code'],
  [/\bqr_free\b/g, 'generate_qr_code_free'],
  [/qr_ffi panicked/g, 'generate_qr_code_ffi panicked'],
  [/\btext\b/g, 'input'],
  [/\bpng\b/g, 'output'],
];
// The unit tests differ by nature (a QR code, a worked example): the ABI is what is compared.
const withoutTests = (source) => source.slice(0, source.indexOf('#[cfg(test)]'));

/** Rust source as tokens: no comments, no layout (rustfmt wraps by name length), no trailing commas. */
function shape(source, renames = []) {
  let text = source.replace(/\/\/.*$/gm, '');
  for (const [from, to] of renames) text = text.replace(from, to);
  return text
    .replace(/\s+/g, ' ')
    .replace(/ ?([^\w\s"']) ?/g, '$1')
    .replace(/,([)\]}])/g, '$1')
    .trim();
}

describe('create-rust-ladder template against the worked example', () => {
  it('napi binding: qr_napi with the names changed (error codes kept on WASI, AbortSignal, panics as errors)', () => {
    assert.equal(shape(TEMPLATE.get('napi/src/lib.rs')), shape(read('qr_napi/src/lib.rs'), RENAMES));
    assert.equal(
      shape(TEMPLATE.get('napi/src/generate_qr_code_task.rs')),
      shape(read('qr_napi/src/generate_task.rs'), RENAMES),
    );
  });

  it('the shape comparison sees a drift of one call', () => {
    const drifted = read('qr_napi/src/lib.rs').replace('Error::from_unknown_without_coercion(', 'Error::from(');
    assert.notEqual(shape(TEMPLATE.get('napi/src/lib.rs')), shape(drifted, RENAMES));
  });

  it('C ABI: qr_ffi with the names changed (status + owned buffer, free, panics caught)', () => {
    const template = withoutTests(TEMPLATE.get('ffi/src/lib.rs'));
    assert.match(template, /catch_unwind/);
    assert.equal(shape(template), shape(withoutTests(read('qr_ffi/src/lib.rs')), FFI_RENAMES));
  });

  it('Wasm binding: the same error conversion (message, and `code` on the Error)', () => {
    const conversion = (source) => shape(/\.map_err\(\|err\| \{[\s\S]*?\n {4}\}\)/.exec(source)?.[0] ?? '');
    const template = conversion(TEMPLATE.get('wasm/src/lib.rs'));
    assert.ok(template.includes('Reflect::set'), template);
    assert.equal(template, conversion(read('qr_wasm/src/bindgen.rs')));
  });

  it("serves through tier-adapters' HTTP layer, as node-server does, with no server settings of its own", () => {
    const server = TEMPLATE.get('js/server.js');
    const httpLayer = /\{[^}]*\bcreateHttpServer,[^}]*\} = require\('tier-adapters\/server'\)/;
    assert.match(server, httpLayer);
    assert.match(read('node-server/server.js'), httpLayer);
    for (const [file, text] of TEMPLATE) {
      if (!file.endsWith('.js')) continue;
      assert.doesNotMatch(text, /\b(keepAliveTimeout|headersTimeout|requestTimeout|createServer|app\.listen)\b/, file);
    }
  });
});
