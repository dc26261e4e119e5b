'use strict';

// The load generator, in processes of its own: its event loop and CPU are not
// the benchmark's (nor the sampler's), and it can be pinned with every thread.
// The processes live as long as the benchmark (createLoad), not one window.
//
// Closed loop (`kind: 'closed'`): autocannon, `connections` clients each
// waiting for its answer. Open loop (`kind: 'open'`): requests at a fixed
// rate on a schedule made before the run (wrk2's approach); each latency runs
// from the request's *scheduled* time, so a stalled server is charged for
// every request it delayed, not only the one it held (no coordinated omission).
const { fork } = require('node:child_process');
const net = require('node:net');
const { performance } = require('node:perf_hooks');
const { drive } = require('./drive');

/**
 * One load job. `kind` is 'closed' (autocannon, `connections` clients) or 'open' (`rate` requests a second);
 * `head` (closed only) counts the measured window's first seconds apart too.
 * @typedef {{ kind: string, connections: number, paths: string[], warmup: number, duration: number,
 *   timeout?: number, rate?: number, keepLatencies?: boolean, head?: number }} LoadJob
 */

/** What a load process sends back: 'measuring', 'measured', 'tick' and 'result'. */
/**
 * A load process's message: 'measuring', 'head', 'measured', 'tick' (with `second` and `counter`), then 'result'
 * or 'failed' (with `message`).
 * @typedef {{ type: 'measuring' | 'head' | 'measured' | 'tick' | 'result' | 'failed', second?: number,
 *   counter?: number, result?: object, message?: string }} LoadMessage
 */

/**
 * One keep-alive HTTP/1.1 connection that sends a request when idle and reads
 * answers by Content-Length (every server here sends it): far cheaper per
 * request than a general client, so the generator stays off the server's CPU.
 * @param {string} url
 */
function createConnection(url) {
  const { hostname, port } = new URL(url);
  let socket;
  let inFlight = null; // the settle callback of the request on the wire
  /** @type {Buffer} */
  let buffer = Buffer.alloc(0);
  const fail = () => {
    const settle = inFlight;
    inFlight = null;
    settle?.(new Error('connection closed'));
  };
  const connect = () => {
    buffer = Buffer.alloc(0);
    socket = net.connect(Number(port), hostname);
    socket.setNoDelay(true);
    socket.on('error', () => {}); // 'close' follows and fails the request
    socket.on('close', () => {
      fail();
      connect();
    });
    socket.on('data', (/** @type {Buffer} no encoding set */ chunk) => {
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      while (inFlight) {
        const headEnd = buffer.indexOf('\r\n\r\n');
        if (headEnd === -1) return;
        const head = buffer.toString('latin1', 0, headEnd);
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? NaN);
        if (!Number.isFinite(length)) return socket.destroy();
        const end = headEnd + 4 + length;
        if (buffer.length < end) return;
        buffer = buffer.subarray(end);
        const settle = inFlight;
        inFlight = null;
        // A server that closes after this answer: the next request goes on a
        // new connection, opened before `settle` may send it.
        if (/\r\nconnection:\s*close/i.test(head)) {
          socket.removeAllListeners('close');
          socket.destroy();
          connect();
        }
        settle(null, Number(head.slice(9, 12)), end);
      }
    });
  };
  connect();
  return {
    send(request, settle) {
      inFlight = settle;
      socket.write(request);
    },
    close() {
      socket.removeAllListeners('close');
      socket.destroy();
    },
  };
}

/**
 * Fixed-rate load over `connections` keep-alive connections. A request whose
 * time has come waits in this process for a free connection, and that wait
 * counts: latency runs from the scheduled time to the last byte.
 * @param {string} url
 * @param {LoadJob & { onMeasureStart?: () => void, onMeasureEnd?: () => void }} job `rate` set
 */
function openLoop(url, { rate, warmup, duration, paths, connections, onMeasureStart, onMeasureEnd }) {
  const { host } = new URL(url);
  const requests = paths.map((p) => Buffer.from(`GET ${p} HTTP/1.1\r\nHost: ${host}\r\n\r\n`, 'latin1'));
  const total = Math.round(rate * (warmup + duration));
  const skipped = Math.round(rate * warmup);
  const intervalMs = 1000 / rate;
  const latencies = [];
  const refusedLatencies = [];
  // How late each measured request left against its schedule: the
  // generator's own timer and event-loop jitter, a floor under any latency.
  const sendLags = [];
  const stats = { responses: 0, bytes: 0, non2xx: 0, errors: 0, timeouts: 0 };
  const waiting = []; // indices due but without a free connection
  let measureStart = 0;
  let lastDone = 0;
  let sent = 0;
  let settled = 0;
  return new Promise((resolve) => {
    const start = performance.now();
    const pool = Array.from({ length: connections }, () => createConnection(url));
    const idle = [...pool];
    let giveUp;
    const finish = () => {
      clearTimeout(giveUp);
      for (const c of pool) c.close();
      stats.timeouts = total - settled;
      stats.errors += stats.timeouts;
      onMeasureEnd?.();
      const sorted = (xs) => Float64Array.from(xs).sort();
      const seconds = (lastDone - measureStart) / 1000;
      resolve({
        ...stats,
        seconds,
        latencies: sorted(latencies),
        refusedLatencies: sorted(refusedLatencies),
        sendLags: sorted(sendLags),
      });
    };
    const dispatch = (conn, i) => {
      const scheduled = start + i * intervalMs;
      if (i === skipped) {
        measureStart = scheduled;
        onMeasureStart?.();
      }
      conn.send(requests[i % requests.length], (err, status, bytes) => {
        if (i >= skipped) {
          lastDone = performance.now();
          if (err) stats.errors++;
          else {
            stats.responses++;
            stats.bytes += bytes;
            const ok = status >= 200 && status <= 299;
            if (!ok) stats.non2xx++;
            (ok ? latencies : refusedLatencies).push(lastDone - scheduled);
          }
        }
        if (waiting.length) dispatch(conn, waiting.shift());
        else idle.push(conn);
        if (++settled === total) finish();
      });
    };
    // Sends everything due, then sleeps until the next request's time. Timers
    // fire late by up to a few ms: late requests still count from their time.
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - start) / intervalMs) + 1);
      while (sent < due) {
        if (sent >= skipped) sendLags.push(performance.now() - (start + sent * intervalMs));
        if (idle.length) dispatch(idle.pop(), sent);
        else waiting.push(sent);
        sent++;
      }
      if (sent < total) setTimeout(tick, Math.max(0, start + sent * intervalMs - performance.now()));
      // What is still unanswered 30 s after the last send counts as timed out.
      else giveUp = setTimeout(finish, 30_000);
    };
    tick();
  });
}

// Child side: one job after another, for as long as the benchmark runs. A
// process forked per window spent its first second or two warming its own
// JIT, and the server under it read costlier per request meanwhile
// (docs/benchmark.md, "How a run works"); a process kept from window to
// window is warm from its second window on.
if (require.main === module) {
  // The benchmark gone (ended, or killed mid-job): so is its load, at once.
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (/** @type {LoadJob & { url: string }} */ job) => {
    let cpuAtStart = process.cpuUsage();
    let cpu = null;
    const onHeadEnd = () => process.send({ type: 'head' });
    const onMeasureStart = () => {
      cpuAtStart = process.cpuUsage();
      process.send({ type: 'measuring' });
    };
    // The generator's CPU over the window alone: the load it sends until it
    // stops (up to a tenth of a second more) is not the window's.
    const onMeasureEnd = () => {
      cpu = process.cpuUsage(cpuAtStart);
      process.send({ type: 'measured' });
    };
    const onTick = (second, counter) => process.send({ type: 'tick', second, counter });
    try {
      const result =
        job.kind === 'open'
          ? await openLoop(job.url, { ...job, onMeasureStart, onMeasureEnd })
          : await drive(job.url, { ...job, onTick, onMeasureStart, onHeadEnd, onMeasureEnd });
      cpu ??= process.cpuUsage(cpuAtStart);
      process.send({ type: 'result', result: { ...result, cpuSeconds: (cpu.user + cpu.system) / 1e6 } });
    } catch (err) {
      process.send({ type: 'failed', message: err.message });
    }
  });
}

/** Splits `n` into `parts` integers that differ by at most one. */
function split(n, parts) {
  return Array.from({ length: parts }, (_, i) => Math.floor(n / parts) + (i < n % parts ? 1 : 0)).filter((x) => x > 0);
}

/**
 * One job in one load process: resolves with its result. The IPC channel
 * holds this process open only while a job runs, so an idle pool never keeps
 * the benchmark from exiting.
 * @param {import('node:child_process').ChildProcess} child
 * @param {object} message
 * @param {(msg: LoadMessage) => void} onMessage
 */
function runIn(child, message, onMessage) {
  return new Promise((resolve, reject) => {
    const done = () => {
      child.off('message', listen);
      child.off('exit', onExit);
      child.off('error', onError);
      child.unref();
      child.channel?.unref();
    };
    const listen = (/** @type {LoadMessage} */ msg) => {
      if (msg.type === 'result') {
        done();
        resolve(msg.result);
      } else if (msg.type === 'failed') {
        done();
        reject(new Error(`load process: ${msg.message}`));
      } else onMessage(msg);
    };
    const onExit = (code, signal) => {
      done();
      reject(new Error(`load process exited with ${code ?? signal}`));
    };
    // A send to a process that has just died fails here (EPIPE), not as a throw.
    const onError = (err) => {
      done();
      reject(new Error(`load process: ${err.message}`));
    };
    child.on('message', listen);
    child.once('exit', onExit);
    child.once('error', onError);
    child.ref();
    child.channel?.ref();
    child.send(message);
  });
}

/**
 * The benchmark's load processes, kept from one job to the next (see the
 * child side above): `run(url, job, options)` runs one job in `processes` of
 * them (connections and rate split between them), merges their figures and
 * reports their CPU in cores; `close()` ends them. `onMeasureStart` fires
 * when the first of them ends its warm-up, `onHeadEnd` when the first is
 * `job.head` seconds into its measured window, `onMeasureEnd` when the last
 * stops counting answers. A process that died is replaced at the next job.
 */
function createLoad() {
  /** @type {import('node:child_process').ChildProcess[]} */
  const children = [];
  const childAt = (i) => {
    const live = children[i];
    if (live && live.exitCode === null && live.signalCode === null && live.connected) return live;
    // A new process warms its own JIT in its first job, which reads that job's server costlier.
    if (live) process.stderr.write(`bench: load process ${i + 1} died and is replaced; its first job runs cold\n`);
    const child = fork(__filename, [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.unref();
    child.channel?.unref();
    children[i] = child;
    return child;
  };
  /**
   * @param {string} url
   * @param {LoadJob} job
   * @param {{ processes?: number, onTick?: (second: number, counter: number) => void, onMeasureStart?: () => void,
   *   onHeadEnd?: () => void, onMeasureEnd?: () => void }} [options]
   */
  const run = (url, job, { processes = 1, onTick, onMeasureStart, onHeadEnd, onMeasureEnd } = {}) => {
    const shares = split(job.connections, Math.min(processes, job.connections));
    let headed = false;
    let started = false;
    let measuring = shares.length;
    const runs = shares.map((connections, i) => {
      const rate = job.rate && (job.rate * connections) / job.connections;
      return runIn(childAt(i), { ...job, url, connections, rate }, (msg) => {
        if (msg.type === 'measuring' && !started) {
          started = true;
          onMeasureStart?.();
        } else if (msg.type === 'head' && !headed) {
          headed = true;
          onHeadEnd?.();
        } else if (msg.type === 'measured') {
          if (--measuring === 0) onMeasureEnd?.();
        } else if (msg.type === 'tick') onTick?.(msg.second, msg.counter);
      });
    });
    // Every share settled before the job ends, so the next job finds its processes idle.
    return Promise.allSettled(runs).then((settled) => {
      const results = [];
      for (const r of settled) {
        if (r.status === 'rejected') throw r.reason;
        results.push(r.value);
      }
      return merge(results);
    });
  };
  const close = () => {
    for (const child of children) if (child?.connected) child.disconnect();
    children.length = 0;
  };
  return { run, close };
}

/** One job's figures from each of its processes, as one. */
function merge(results) {
  const seconds = Math.max(...results.map((r) => r.seconds));
  const merged = (key) => {
    const all = new Float64Array(results.reduce((n, r) => n + r[key].length, 0));
    let at = 0;
    for (const r of results) {
      all.set(r[key], at);
      at += r[key].length;
    }
    return all.sort();
  };
  const sum = (key) => results.reduce((n, r) => n + (r[key] ?? 0), 0);
  return {
    responses: sum('responses'),
    bytes: sum('bytes'),
    non2xx: sum('non2xx'),
    errors: sum('errors'),
    timeouts: sum('timeouts'),
    seconds,
    latencies: merged('latencies'),
    refusedLatencies: merged('refusedLatencies'),
    ...(results[0].sendLags && { sendLags: merged('sendLags') }),
    ...(results.every((r) => r.headSeconds !== undefined) && {
      headResponses: sum('headResponses'),
      headSeconds: Math.max(...results.map((r) => r.headSeconds)),
    }),
    loadGeneratorCpuCores: sum('cpuSeconds') / seconds,
    loadProcesses: results.length,
  };
}

/** One job in load processes of its own, ended when it is done (tests, one-off measurements). */
async function runLoad(url, job, options = {}) {
  const load = createLoad();
  try {
    return await load.run(url, job, options);
  } finally {
    load.close();
  }
}

module.exports = { createLoad, runLoad, openLoop };
