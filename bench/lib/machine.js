'use strict';

// What a report says about the machine it was made on, and what the machine
// did meanwhile: /proc/stat's steal (a hypervisor giving our vCPUs to others)
// and softirq (network processing) over each measured window.
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const { describeNode } = require('./node-lines');

/** The aggregate CPU line of /proc/stat, in ticks; null off Linux. */
function cpuTicks() {
  let line;
  try {
    line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  } catch {
    return null;
  }
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return { total: user + nice + system + idle + iowait + irq + softirq + steal, idle: idle + iowait, softirq, steal };
}

/** Shares of all CPU time between two cpuTicks() readings. */
function cpuShares(before, after) {
  if (!before || !after) return null;
  const total = after.total - before.total || 1;
  return {
    steal: (after.steal - before.steal) / total,
    softirq: (after.softirq - before.softirq) / total,
    busy: 1 - (after.idle - before.idle) / total,
  };
}

const tryRun = (cmd, args) => {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8' }).trim();
  } catch {
    return `${cmd}: not found`;
  }
};

/** The machine and tools of a run; `serverNode` is the node the servers ran on. */
function describeMachine(serverNode) {
  const servers = describeNode(serverNode);
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown CPU',
    cores: os.availableParallelism(),
    memoryGB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    kernel: os.release(),
    node: servers.node,
    v8: servers.v8,
    harnessNode: process.version,
    autocannon: require('autocannon/package.json').version,
    // `wrk -v` prints its version and exits 1.
    wrk: (spawnSync('wrk', ['-v'], { encoding: 'utf8' }).stdout ?? 'wrk: not found').split(' [')[0],
    rustc: tryRun('rustc', ['--version']),
  };
}

/**
 * Whether two reports come from the same kind of machine: what a ratio depends on. The kernel is part of it: a
 * VM of the same CPU name on another kernel build is another host, and can run the tiers at other ratios.
 */
function sameMachine(a, b) {
  const keys = ['cpu', 'cores', 'memoryGB', 'kernel'];
  const differ = keys.filter((k) => a?.[k] !== b?.[k]);
  return { same: differ.length === 0, differ: differ.map((k) => `${k}: ${a?.[k]} vs ${b?.[k]}`) };
}

module.exports = { cpuTicks, cpuShares, describeMachine, sameMachine };
