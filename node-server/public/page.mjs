// The page's only script: the Wasm build of the core (qr_wasm, wasm-pack
// --target web) next to the server's answer for the same text.
import init, { generateQrCode } from '/wasm/qr_wasm.js';

const $ = (id) => document.getElementById(id);
const ms = (t) => `${t.toFixed(2)} ms`;
const show = (img, bytes) => {
  if (img.src) URL.revokeObjectURL(img.src);
  img.src = URL.createObjectURL(new Blob([bytes], { type: 'image/png' }));
};
const same = (a, b) => a.length === b.length && a.every((byte, i) => byte === b[i]);

let latest = 0;
async function render() {
  const text = $('text').value;
  const mine = ++latest;
  if (!text) return;
  const errors = [];
  $('error').textContent = '';

  let local;
  const t0 = performance.now();
  try {
    local = generateQrCode(text);
    $('browser-time').textContent = ms(performance.now() - t0);
    show($('browser-png'), local);
  } catch (err) {
    errors.push(`in this page: ${err.code ?? 'ERROR'} ${err.message}`);
  }

  const s0 = performance.now();
  const res = await fetch(`/qrcode?text=${encodeURIComponent(text)}`);
  const body = new Uint8Array(await res.arrayBuffer());
  if (mine !== latest) return; // a newer keystroke owns the page now
  $('server-time').textContent = `${ms(performance.now() - s0)} round trip`;
  if (!res.ok) errors.push(`server: ${res.status} ${new TextDecoder().decode(body)}`);
  $('error').textContent = errors.join('; ');
  if (!res.ok) return;
  show($('server-png'), body);
  $('same').textContent = local ? (same(local, body) ? 'Byte-identical PNGs' : 'The two PNGs differ') : '';
  $('encoded').textContent = text;
}

await init();
$('tier').textContent = (await (await fetch('/healthz')).json()).tier;
$('text').addEventListener('input', render);
