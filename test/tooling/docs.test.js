'use strict';

// The docs as a newcomer walks them: the README's first screen holds the two
// commands, the tiers and the decision guide, and no relative link or anchor
// in any tracked Markdown file leads nowhere.

const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..', '..');

function trackedMarkdown() {
  return execFileSync('git', ['ls-files', '-z', '*.md'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
}

/** The text outside fenced code blocks and inline code spans. */
function prose(text) {
  return text
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
    .replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length));
}

/** GitHub's anchor for each heading of `text`, duplicates numbered as GitHub does. */
function anchors(text) {
  const seen = new Map();
  const out = new Set();
  const withoutFences = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading] of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** Every relative link of `file`: { target, anchor, line }. */
function relativeLinks(file, text) {
  const links = [];
  const lines = prose(text).split('\n');
  const joined = lines.join('\n');
  for (const m of joined.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const href = m[1];
    if (/^[a-z][a-z+.-]*:/i.test(href)) continue; // http:, https:, mailto:
    const [target, anchor] = href.split('#');
    const line = joined.slice(0, m.index).split('\n').length;
    links.push({ target: target ? path.join(path.dirname(file), decodeURI(target)) : file, anchor, line });
  }
  return links;
}

/**
 * What marks a run, not how things work: a temporary directory, a commit hash
 * (seven or more hex digits with a digit and a letter among them), a date.
 * Each a `file:line: match` of `text`.
 */
function runMarks(file, text) {
  const marks = [
    /\/tmp\/\S*/g,
    /\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/g,
    /\b20\d\d-[01]\d-[0-3]\d\b/g,
  ];
  return text
    .split('\n')
    .flatMap((line, i) =>
      marks.flatMap((mark) => [...line.matchAll(mark)].map(([found]) => `${file}:${i + 1}: ${found}`)),
    );
}

describe('the docs', () => {
  const files = trackedMarkdown();
  // Guides say how things work; which run, when and at which commit belongs to
  // CHANGELOG.md, the committed reports and qr_lib's bench history.
  const guides = files.filter((f) => f === 'README.md' || f.startsWith('docs/') || /^[^/]+\/README\.md$/.test(f));

  it('finds the marks of a run: a temporary path, a commit hash, a date', () => {
    const text = 'run at 3afc130 on 2026-11-27 into /tmp/runs/C\nversion 0.2.130, colour #ffffff, 1234567 rows';
    assert.deepEqual(runMarks('a.md', text), ['a.md:1: /tmp/runs/C', 'a.md:1: 3afc130', 'a.md:1: 2026-11-27']);
  });

  it('no guide names a temporary path, a commit hash or the date of a run', () => {
    assert.ok(guides.length > 10, `${guides.length} guides`);
    const found = guides.flatMap((file) => runMarks(file, fs.readFileSync(path.join(ROOT, file), 'utf8')));
    assert.deepEqual(found, [], 'history goes to CHANGELOG.md; a figure cites its committed report or command');
  });

  it('every relative link and anchor in a tracked Markdown file exists', () => {
    const broken = [];
    let checked = 0;
    for (const file of files) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      for (const { target, anchor, line } of relativeLinks(file, text)) {
        checked++;
        const where = `${file}:${line}`;
        if (!fs.existsSync(path.join(ROOT, target))) {
          broken.push(`${where}: ${target} does not exist`);
        } else if (anchor !== undefined && target.endsWith('.md')) {
          const heads = anchors(fs.readFileSync(path.join(ROOT, target), 'utf8'));
          if (!heads.has(anchor)) broken.push(`${where}: ${target} has no heading #${anchor}`);
        }
      }
    }
    assert.ok(checked > 25, `only ${checked} links found: the scan is broken`);
    assert.deepEqual(broken, []);
  });

  it('computes anchors as GitHub does', () => {
    const heads = anchors('# A `b`: c\n## Which tier?\n## Which tier?\n```\n# not a heading\n```\n');
    assert.deepEqual([...heads], ['a-b-c', 'which-tier', 'which-tier-1']);
  });

  it("the README's first screen has the two commands, the tier table and the decision guide", () => {
    const lines = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n');
    assert.ok(lines.length <= 200, `README.md is ${lines.length} lines: guides belong in docs/`);
    const screen = lines.slice(0, 60).join('\n');
    assert.match(screen, /^make bench\s+#/m);
    assert.match(screen, /^make test\s+#/m);
    assert.match(screen, /^\| tier \| name \|/m);
    const guide = lines.indexOf('## Which tier?');
    assert.ok(guide >= 0 && guide < 60, `"## Which tier?" at line ${guide + 1}`);
  });

  it('every doc is one link away from the README', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const linked = new Set(relativeLinks('README.md', readme).map((l) => l.target));
    const docs = files.filter(
      (f) => f.startsWith('docs/') || /^[^/]+\/README\.md$/.test(f) || f === 'qr_lib/benches/README.md',
    );
    const missing = docs.filter((f) => !linked.has(f));
    assert.deepEqual(missing, []);
  });
});
