'use strict';

// Every adapter against real functions, real child processes and a real
// HTTP upstream: results, errors, the queue bound, hang-ups and close.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const path = require('node:path');
const {
  createEventLoopTier,
  createThreadPoolTier,
  createStdioPoolTier,
  createSpawnTier,
  createHttpUpstreamTier,
  TierError,
} = require('..');
const { superviseServer } = require('../server');

const FIXTURES = path.join(__dirname, 'fixtures');
const node = (script) => ({ command: process.execPath, args: [path.join(FIXTURES, script)] });
const BUSY = { code: 'SERVER_BUSY', status: 503, message: 'server busy', headers: { 'Retry-After': '1' } };
const CLOSED = { code: 'TIER_CLOSED', status: 503 };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const waitUntil = async (condition, ms = 5000) => {
  for (const end = Date.now() + ms; !condition(); await sleep(20)) if (Date.now() > end) throw new Error('timed out');
};
const abortedSignal = () => {
  const abort = new AbortController();
  return { signal: abort.signal, abort: () => abort.abort() };
};

/** Starts `count` calls at once; resolves with their settled results. */
const burst = (tier, inputs, options) => Promise.allSettled(inputs.map((input) => tier.run(input, options)));

describe('createEventLoopTier', () => {
  it('returns results and errors, refuses past maxQueue, and drops an aborted call unrun', async () => {
    const ran = [];
    const tier = createEventLoopTier(
      (x) => {
        ran.push(x);
        if (x === 'bad') throw new TierError('BAD', 'bad input', { status: 400 });
        return x.toUpperCase();
      },
      { maxQueue: 3 },
    );
    const gone = abortedSignal();
    const leaving = tier.run('left', { signal: gone.signal }).catch((e) => e);
    gone.abort();
    const results = await burst(tier, ['a', 'bad', 'c', 'd']);
    assert.equal((await leaving).name, 'AbortError');
    assert.equal(results[0].value, 'A');
    assert.equal(results[1].reason.code, 'BAD');
    assert.equal(results[2].value, 'C');
    // 'left' held a slot until it aborted; then a, bad, c filled the 3 and d was refused.
    assert.throws(() => {
      throw results[3].reason;
    }, BUSY);
    assert.deepEqual(ran, ['a', 'bad', 'c']);
    await tier.close();
    await assert.rejects(tier.run('late'), CLOSED);
  });
});

describe('createThreadPoolTier', () => {
  it('runs at most `concurrency` at once, queues maxQueue more, refuses the rest', async () => {
    let running = 0;
    let most = 0;
    const tier = createThreadPoolTier(
      async (x) => {
        most = Math.max(most, ++running);
        await sleep(20);
        running--;
        return x * 2;
      },
      { concurrency: 2, maxQueue: 3 },
    );
    const results = await burst(tier, [1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(
      results.slice(0, 5).map((r) => r.value),
      [2, 4, 6, 8, 10],
    );
    for (const r of results.slice(5)) assert.equal(r.reason.code, 'SERVER_BUSY');
    assert.equal(most, 2);
  });

  it('lets a waiting call whose client hung up leave without running', async () => {
    const ran = [];
    const tier = createThreadPoolTier(
      async (x) => {
        ran.push(x);
        await sleep(20);
      },
      { concurrency: 1, maxQueue: 5 },
    );
    const gone = abortedSignal();
    const first = tier.run('first');
    const second = tier.run('second', { signal: gone.signal }).catch((e) => e);
    gone.abort();
    await first;
    assert.equal((await second).name, 'AbortError');
    assert.deepEqual(ran, ['first']);
    assert.equal(tier.queued, 0);
  });
});

describe('the Limiter behind the thread-pool, stdio-pool, spawn and upstream tiers', () => {
  it("hands a free slot to calls of priority 'low' only when no other waits", async () => {
    const ran = [];
    const tier = createThreadPoolTier(
      async (x) => {
        ran.push(x);
        await sleep(5);
      },
      { concurrency: 1, maxQueue: 5 },
    );
    await Promise.all([
      tier.run('first'),
      tier.run('low 1', { priority: 'low' }),
      tier.run('a'),
      tier.run('low 2', { priority: 'low' }),
      tier.run('b'),
    ]);
    assert.deepEqual(ran, ['first', 'a', 'b', 'low 1', 'low 2']);
  });
});

describe('createStdioPoolTier', () => {
  it('answers through the workers, pipelined, and decodes error statuses', async () => {
    const tier = createStdioPoolTier({
      ...node('framed-worker.js'),
      size: 2,
      decodeError: (status, payload) => new TierError(`E${status}`, payload.toString(), { status: 422 }),
    });
    try {
      const inputs = Array.from({ length: 50 }, (_, i) => `text ${i} ü`);
      const out = await Promise.all(inputs.map((t) => tier.run(t)));
      assert.deepEqual(
        out.map(String),
        inputs.map((t) => t.toUpperCase()),
      );
      await assert.rejects(tier.run('fail no way'), { code: 'E7', message: 'no way', status: 422 });
      assert.equal(String(await tier.run(Buffer.from('bytes too'))), 'BYTES TOO');
    } finally {
      await tier.close();
    }
  });

  it('fails the calls of a worker that dies, replaces it, and keeps serving', async () => {
    const logs = [];
    const tier = createStdioPoolTier({ ...node('framed-worker.js'), name: 'echo', size: 1, log: (l) => logs.push(l) });
    try {
      await assert.rejects(tier.run('die'), { code: 'CHILD_FAILED', message: 'echo worker exited with 3' });
      let answer;
      for (let i = 0; i < 50 && answer === undefined; i++) {
        await sleep(50);
        answer = await tier.run('back').then(String, () => undefined);
      }
      assert.equal(answer, 'BACK');
      assert.match(logs[0], /^echo worker \d+ exited with 3; replacing it in 100 ms$/);
    } finally {
      await tier.close();
    }
  });

  it('kills a worker that misses the deadline', async () => {
    const tier = createStdioPoolTier({
      ...node('framed-worker.js'),
      name: 'echo',
      size: 1,
      deadlineMs: 200,
      log: () => {},
    });
    try {
      await assert.rejects(tier.run('hang'), {
        code: 'CHILD_FAILED',
        message: 'echo worker missed the 200 ms deadline',
      });
    } finally {
      await tier.close();
    }
  });

  // A port that prints to stdout (a debug line, a `println!`): the frames are
  // out of step. Every call then fails (500) and the worker is replaced, the
  // cause logged; no call is ever answered with those bytes.
  it('kills and replaces a worker that writes junk to stdout, first or in the middle, never answering', async (t) => {
    // What the tier knows of its answers: upper-cased text, never empty.
    const checkAnswer = (status, payload) => status === 0 && payload.length > 0 && /^[^a-z]*$/.test(payload);
    const logs = [];
    const options = { ...node('framed-worker.js'), name: 'echo', size: 1, log: (l) => logs.push(l), checkAnswer };
    const first = createStdioPoolTier(options);
    // Closed whatever fails: a live worker would keep the test process from exiting.
    t.after(() => first.close());
    // Junk first: a debug line printed at start.
    process.env.JUNK_FIRST = 'debug: starting up';
    const chatty = createStdioPoolTier(options);
    delete process.env.JUNK_FIRST;
    try {
      await assert.rejects(chatty.run('hello'), { code: 'CHILD_FAILED' });
      // Read before the call or after it was sent: either way junk.
      const cause = /^echo worker \d+ (wrote bytes while no request was waiting|sent a length of \d+ bytes) /;
      assert.match(logs[0], cause);
      // The first answer frame may arrive in the same read, so the quote may go on past the line.
      assert.match(logs[0], /"debug: starting up\\n.*"\); replacing it in \d+ ms$/);
    } finally {
      await chatty.close();
    }
    logs.length = 0;
    try {
      assert.equal(String(await first.run('one')), 'ONE');
      // Junk in the middle: before an answer, a line ("debu" would be a 1.7 GB length) ...
      const [said, behind] = await burst(first, ['say debug: in the middle', 'behind it']);
      assert.equal(said.status, 'rejected');
      assert.equal(behind.status, 'rejected');
      assert.match(logs[0], /sent a length of \d+ bytes .*"debug: in the middle\\n/);
      // ... one zero byte that reads as a header with status 0 and length 0 ...
      const back = async (text) => {
        for (let i = 0; i < 50; i++) {
          const answer = await first.run(text).then(String, () => undefined);
          if (answer !== undefined) return answer;
          await sleep(50);
        }
      };
      assert.equal(await back('again'), 'AGAIN');
      await assert.rejects(first.run('nul'), { code: 'CHILD_FAILED' });
      assert.match(logs[1], /sent a frame that is no answer/);
      // ... and a line with no call waiting: killed at once, not kept.
      assert.equal(await back('later surprise'), 'LATER SURPRISE');
      await waitUntil(() => logs.length === 3);
      assert.match(logs[2], /wrote bytes while no request was waiting .*"surprise\\n"/);
      assert.equal(await back('served again'), 'SERVED AGAIN');
    } finally {
      await first.close();
    }
  });

  it('refuses past size * pipelineDepth + maxQueue', async () => {
    const tier = createStdioPoolTier({
      ...node('framed-worker.js'),
      size: 1,
      pipelineDepth: 2,
      maxQueue: 1,
      deadlineMs: 60_000,
    });
    try {
      const hung = ['hang', 'hang', 'hang'].map((t) => tier.run(t).catch(() => {}));
      await assert.rejects(tier.run('one too many'), BUSY);
      await tier.close().catch(() => {});
      await Promise.all(hung);
    } finally {
      await tier.close();
    }
  });
});

describe('createSpawnTier', () => {
  it('runs a process per call, decodes a failed exit, and bounds the processes', async () => {
    const tier = createSpawnTier({
      ...node('upper.js'),
      name: 'upper',
      concurrency: 1,
      maxQueue: 1,
      decodeFailure: ({ code, stderr }) => new TierError(`EXIT_${code}`, stderr.trim(), { status: 400 }),
    });
    assert.equal(String(await tier.run('héllo')), 'HÉLLO');
    await assert.rejects(tier.run('fail'), { code: 'EXIT_65', message: 'upper: cannot do that', status: 400 });
    const results = await burst(tier, ['slow', 'slow', 'slow']);
    assert.deepEqual(
      results.map((r) => r.value?.toString() ?? r.reason.code),
      ['SLOW', 'SLOW', 'SERVER_BUSY'],
    );
  });

  it('kills the child when the caller gives up', async () => {
    const tier = createSpawnTier({ command: 'sleep', args: ['30'], name: 'sleep' });
    const gone = abortedSignal();
    const started = Date.now();
    const call = tier.run('', { signal: gone.signal });
    setTimeout(gone.abort, 100);
    await assert.rejects(call);
    assert.ok(Date.now() - started < 5000);
  });
});

/** A real HTTP upstream whose answer the test picks per path. */
async function upstream(handler) {
  const server = http.createServer(handler);
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((r) => server.closeAllConnections() || server.close(r)),
  };
}

describe('createHttpUpstreamTier', () => {
  it('passes 200 bodies, 4xx and 503 through and hides other 5xx', async () => {
    const up = await upstream((req, res) => {
      const [status, body] = {
        '/x?v=ok': [200, 'fine'],
        '/x?v=bad': [400, 'bad input'],
        '/x?v=busy': [503, 'busy'],
        '/x?v=boom': [500, 'stack trace'],
      }[req.url];
      res.writeHead(status).end(body);
    });
    const tier = createHttpUpstreamTier({ url: up.url, path: (v) => `/x?v=${v}`, name: 'calc upstream' });
    try {
      assert.equal(String(await tier.run('ok')), 'fine');
      await assert.rejects(tier.run('bad'), { status: 400, message: 'bad input' });
      await assert.rejects(tier.run('busy'), BUSY);
      const boom = await tier.run('boom').catch((e) => e);
      assert.equal(boom.status, 500);
      assert.notEqual(boom.expose, true);
    } finally {
      await tier.close();
      await up.close();
    }
  });

  it('fails on statuses outside 2xx, 4xx and 503, and on an answer past maxBodyBytes', async () => {
    const MiB = 1 << 20;
    const up = await upstream((req, res) => {
      if (req.url === '/moved') return res.writeHead(302, { Location: '/elsewhere' }).end('go elsewhere');
      if (req.url === '/created') return res.writeHead(201).end('made');
      if (req.url === '/announced') return res.writeHead(200, { 'Content-Length': 2 * MiB }).end(Buffer.alloc(2 * MiB));
      // Chunked, no length said: counted as it comes, and not read to its end.
      res.writeHead(200);
      let sent = 0;
      const more = () => {
        while (sent < 64 * MiB && res.write(Buffer.alloc(64 << 10))) sent += 64 << 10;
        if (sent < 64 * MiB) res.once('drain', more);
        else res.end();
      };
      res.on('close', () => (up.streamed = sent));
      more();
    });
    const options = { url: up.url, path: (v) => `/${v}`, name: 'calc upstream', maxBodyBytes: MiB };
    const tier = createHttpUpstreamTier(options);
    try {
      const moved = await tier.run('moved').catch((e) => e);
      assert.equal(moved.status, 502);
      assert.notEqual(moved.expose, true);
      assert.equal(String(await tier.run('created')), 'made');
      await assert.rejects(tier.run('announced'), { status: 502, message: 'calc upstream unavailable' });
      await assert.rejects(tier.run('streamed'), { status: 502, message: 'calc upstream unavailable' });
      await waitUntil(() => up.streamed !== undefined);
      assert.ok(up.streamed < 16 * MiB, `read ${up.streamed} bytes`);
    } finally {
      await tier.close();
      await up.close();
    }
  });

  it('answers 502 for a dead upstream and 504 for a silent one', async () => {
    const silent = await upstream(() => {});
    const dead = await upstream(() => {});
    await dead.close();
    const deadTier = createHttpUpstreamTier({ url: dead.url, path: () => '/', name: 'calc upstream' });
    const silentTier = createHttpUpstreamTier({
      url: silent.url,
      path: () => '/',
      name: 'calc upstream',
      timeoutMs: 300,
    });
    try {
      await assert.rejects(deadTier.run('x'), { status: 502, message: 'calc upstream unavailable', expose: true });
      await assert.rejects(silentTier.run('x'), { status: 504, message: 'calc upstream timed out', expose: true });
    } finally {
      await deadTier.close();
      await silentTier.close();
      await silent.close();
    }
  });

  it('holds at most `connections` calls upstream and maxQueue more', async () => {
    let seen = 0;
    const up = await upstream((_req, res) => {
      seen++;
      setTimeout(() => res.end('ok'), 100);
    });
    const tier = createHttpUpstreamTier({ url: up.url, path: () => '/', connections: 1, maxQueue: 1 });
    try {
      const results = await burst(tier, [1, 2, 3]);
      assert.deepEqual(
        results.map((r) => r.value?.toString() ?? r.reason.code),
        ['ok', 'ok', 'SERVER_BUSY'],
      );
      assert.equal(seen, 2);
    } finally {
      await tier.close();
      await up.close();
    }
  });
});

describe('superviseServer', () => {
  it('restarts a server that dies on the same port', async () => {
    const logs = [];
    const { command, args } = node('http-server.js');
    const server = await superviseServer({
      command,
      args: (port) => [...args, '--port', String(port)],
      name: 'test server',
      log: (l) => logs.push(l),
    });
    try {
      const first = Number(await (await fetch(`${server.url}/pid`)).text());
      process.kill(first, 'SIGKILL');
      let second;
      for (let i = 0; i < 50 && !second; i++) {
        await sleep(50);
        second = await fetch(`${server.url}/pid`).then(
          async (r) => Number(await r.text()),
          () => undefined,
        );
      }
      assert.ok(second && second !== first, `restarted: ${first} -> ${second}`);
      assert.match(logs[0], new RegExp(`^test server ${first} exited with SIGKILL; restarting it in 100 ms$`));
    } finally {
      await server.close();
    }
  });
});
