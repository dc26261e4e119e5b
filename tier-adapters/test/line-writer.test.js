'use strict';

// tier-adapters/line-writer.js on real pipes: a process that logs and ends
// on its own has every line written (the thread is held while lines wait,
// and keeps nothing alive once idle); a reader that never reads costs
// dropped lines, counted, and never a blocked event loop.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');

const WRITER = path.join(__dirname, '..', 'line-writer.js');

describe('createLineWriter', () => {
  it('writes every line of a process that ends on its own, and lets it end', () => {
    const script = `const w = require(${JSON.stringify(WRITER)}).createLineWriter();
      for (let i = 0; i < 5000; i++) w.write(JSON.stringify({ i, pad: 'x'.repeat(100) }) + '\\n');`;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 10_000 });
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).i);
    assert.deepEqual(
      lines,
      Array.from({ length: 5000 }, (_, i) => i),
    );
  });

  it('drops and counts past its bound while nobody reads, and the loop runs on', async () => {
    const script = `const w = require(${JSON.stringify(WRITER)}).createLineWriter({ maxPendingBytes: 1 << 20 });
      const line = 'y'.repeat(999) + '\\n';
      let turns = 0;
      const tick = setInterval(() => turns++, 1);
      for (let round = 0; round < 20; round++) {
        setTimeout(() => { for (let i = 0; i < 1000; i++) w.write(line); }, round * 5);
      }
      setTimeout(() => {
        clearInterval(tick);
        process.stderr.write(JSON.stringify({ dropped: w.dropped(), turns }));
        process.exit(0);
      }, 500);`;
    // stdout is a pipe this test never reads: the kernel's 64 KiB fill, then the writer's bound.
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pause();
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    child.stdout.destroy();
    assert.equal(code, 0, stderr);
    const { dropped, turns } = JSON.parse(stderr);
    // 20 MB offered, at most 1 MiB waiting and ~80 KiB in the pipe and the reader's buffer.
    assert.ok(dropped > 18_000, `${dropped} dropped`);
    assert.ok(turns > 100, `the event loop turned ${turns} times in 500 ms`);
  });
});
