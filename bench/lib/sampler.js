'use strict';

// Samples a server's process tree (memory peaks, CPU time) from a process of
// its own: reading smaps_rollup every 200 ms is synchronous work that would
// otherwise delay the load generator's event loop and be billed to it.
const { fork } = require('node:child_process');
const { sampleTree, treeCpuSeconds, threadTicks, busiestThreadSeconds } = require('./proc-tree');
const { createSpeedProbe } = require('./speed-probe');

const SAMPLE_MS = 200;

// Child side: 'begin' opens a window ('begin with probe' runs the speed probe
// through it too), 'end' closes it and answers its figures. 'mark', inside a
// window, reads the tree's CPU time then: the figures add the CPU from the
// window's start to the mark (the window's head, load.js).
if (require.main === module) {
  const [root, includeRoot] = [Number(process.argv[2]), process.argv[3] === 'true'];
  /**
   * @type {{ peakPss: number, peakRss: number, peakUss: number, cpu: NodeJS.CpuUsage, at: bigint,
   *   threads: ReturnType<typeof threadTicks>, start?: ReturnType<typeof sampleTree>, probing?: boolean,
   *   headCpuSeconds?: number }}
   */
  let window = null;
  let timer = null;
  const probe = createSpeedProbe();
  const sample = () => {
    const s = sampleTree(root, { includeRoot });
    window.peakPss = Math.max(window.peakPss, s.pss);
    window.peakRss = Math.max(window.peakRss, s.rss);
    window.peakUss = Math.max(window.peakUss, s.uss);
    return s;
  };
  process.on('message', (msg) => {
    if (msg === 'mark') {
      if (window) window.headCpuSeconds = treeCpuSeconds(root, { includeRoot }) - window.start.cpuSeconds;
    } else if (msg === 'begin' || msg === 'begin with probe') {
      window = {
        peakPss: 0,
        peakRss: 0,
        peakUss: 0,
        cpu: process.cpuUsage(),
        at: process.hrtime.bigint(),
        threads: threadTicks(root, { includeRoot }),
      };
      window.start = sample();
      timer = setInterval(sample, SAMPLE_MS);
      window.probing = msg === 'begin with probe';
      if (window.probing) probe.start();
      process.send({ type: 'begun' });
    } else if (msg === 'end') {
      clearInterval(timer);
      const speedProbe = window.probing ? probe.stop() : undefined;
      const end = sample();
      const threads = threadTicks(root, { includeRoot });
      const wallSeconds = Number(process.hrtime.bigint() - window.at) / 1e9;
      const own = process.cpuUsage(window.cpu);
      process.send({
        type: 'ended',
        result: {
          peakPss: window.peakPss,
          peakRss: window.peakRss,
          peakUss: window.peakUss,
          serverCpuSeconds: end.cpuSeconds - window.start.cpuSeconds,
          busiestThreadCores: busiestThreadSeconds(window.threads, threads) / wallSeconds,
          processes: end.processes,
          wallSeconds,
          samplerCpuCores: (own.user + own.system) / 1e6 / wallSeconds,
          speedProbe,
          headCpuSeconds: window.headCpuSeconds,
        },
      });
    }
  });
  process.on('disconnect', () => process.exit(0));
}

/**
 * A sampler for the tree under `root`: `measure(fn)` runs fn between a
 * 'begin' and an 'end' and resolves with fn's result and the window's figures.
 * @param {number} root
 * @param {{ includeRoot?: boolean }} [options]
 */
function createSampler(root, { includeRoot = true } = {}) {
  const child = fork(__filename, [String(root), String(includeRoot)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const reply = (type) =>
    new Promise((resolve, reject) => {
      const onMessage = (msg) => {
        if (msg.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(msg.result);
      };
      const onExit = (code) => reject(new Error(`sampler exited with ${code}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  return {
    /** Reads the tree's CPU time now, inside a window: its `headCpuSeconds`. */
    mark() {
      child.send('mark');
    },
    /** @param {{ probe?: boolean }} [options] */
    begin({ probe = false } = {}) {
      const begun = reply('begun');
      child.send(probe ? 'begin with probe' : 'begin');
      return begun;
    },
    end() {
      const ended = reply('ended');
      child.send('end');
      return ended;
    },
    close() {
      if (child.connected) child.disconnect();
    },
  };
}

module.exports = { createSampler };
