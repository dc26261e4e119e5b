'use strict';

// The `text` query parameter, read from the raw query string with the same
// rules as qr_server/src/query.rs: a lenient query parser would hide repeated
// keys and turn bytes that are not UTF-8 into U+FFFD.

const MISSING = 'missing "text" query param';
const NOT_SINGLE = '"text" must be a single string';
const INVALID_UTF8 = 'text must be valid UTF-8';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const HEX = /^[0-9a-fA-F]{2}$/;

/** Form-urlencoded to bytes: `+` is a space, `%XX` a byte, any other `%` stays. */
function decode(component) {
  if (!component.includes('%')) return Buffer.from(component.replaceAll('+', ' '), 'utf8');
  const bytes = [];
  const raw = Buffer.from(component, 'utf8');
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i];
    if (b === 0x25 && HEX.test(raw.toString('latin1', i + 1, i + 3))) {
      bytes.push(parseInt(raw.toString('latin1', i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(b === 0x2b ? 0x20 : b);
    }
  }
  return Buffer.from(bytes);
}

/**
 * @param {string} url the request target, e.g. req.url
 * @returns {{text: string} | {error: string}}
 */
function textParam(url) {
  // A `#` starts a fragment: not part of the query (RFC 3986; hyper drops it).
  const target = url.split('#', 1)[0];
  const q = target.indexOf('?');
  const query = q === -1 ? '' : target.slice(q + 1);
  let found;
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decode(eq === -1 ? pair : pair.slice(0, eq)).toString('latin1');
    if (key === 'text') {
      if (found !== undefined) return { error: NOT_SINGLE };
      found = eq === -1 ? '' : pair.slice(eq + 1);
    } else if (key.startsWith('text[')) {
      return { error: NOT_SINGLE };
    }
  }
  if (!found) return { error: MISSING };
  const bytes = decode(found);
  if (bytes.length === 0) return { error: MISSING };
  try {
    return { text: utf8.decode(bytes) };
  } catch {
    return { error: INVALID_UTF8 };
  }
}

module.exports = { textParam };
