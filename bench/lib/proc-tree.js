'use strict';

// A server's whole process tree from /proc: the Node process or cluster, the
// children it spawns per call or keeps as workers, a server it fronts.
const fs = require('node:fs');

const PAGE_TICKS = 100; // USER_HZ: /proc times are in 1/100 s on Linux

function read(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null; // the process exited meanwhile
  }
}

/** Direct children of a pid (started from any of its threads), from /proc. */
function childPids(pid) {
  let tasks;
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return []; // exited meanwhile
  }
  return tasks.flatMap((task) =>
    (read(`/proc/${pid}/task/${task}/children`) ?? '').split(' ').filter(Boolean).map(Number),
  );
}

/** A pid and all its descendants still alive. */
function treePids(root) {
  const pids = [];
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop();
    if (!fs.existsSync(`/proc/${pid}`)) continue;
    pids.push(pid);
    stack.push(...childPids(pid));
  }
  return pids;
}

function kb(text, field) {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text ?? '');
  return match ? Number(match[1]) : 0;
}

/** /proc/PID/stat fields after the command name, which may contain spaces: see proc(5). */
function statFields(pid) {
  const stat = read(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
}

// utime, stime, cutime and cstime: the process's CPU and that of its children that have exited.
const ticksOf = (fields) => Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);

/** CPU seconds of this process's reaped children (a finished wrk, for one). */
function reapedChildrenCpuSeconds() {
  const fields = statFields('self');
  return (Number(fields[13]) + Number(fields[14])) / PAGE_TICKS;
}

/**
 * One sample of the tree: PSS, USS (private pages) and RSS in bytes, and CPU
 * seconds. CPU counts each live process's user + system time plus that of its reaped children
 * (processes spawned per request end up there). `includeRoot: false`
 * leaves out a root that only launched the rest.
 */
function sampleTree(root, { includeRoot = true } = {}) {
  let pss = 0;
  let uss = 0;
  let rss = 0;
  let cpuTicks = 0;
  let processes = 0;
  for (const pid of treePids(root)) {
    if (pid === root && !includeRoot) continue;
    const fields = statFields(pid);
    if (!fields) continue;
    processes++;
    cpuTicks += ticksOf(fields);
    const rollup = read(`/proc/${pid}/smaps_rollup`);
    pss += kb(rollup, 'Pss') * 1024;
    uss += (kb(rollup, 'Private_Clean') + kb(rollup, 'Private_Dirty')) * 1024;
    rss += kb(read(`/proc/${pid}/status`), 'VmRSS') * 1024;
  }
  return { pss, uss, rss, cpuSeconds: cpuTicks / PAGE_TICKS, processes };
}

/** The tree's CPU seconds alone (see sampleTree), without its memory: a quick reading. */
function treeCpuSeconds(root, { includeRoot = true } = {}) {
  let cpuTicks = 0;
  for (const pid of treePids(root)) {
    if (pid === root && !includeRoot) continue;
    const fields = statFields(pid);
    if (fields) cpuTicks += ticksOf(fields);
  }
  return cpuTicks / PAGE_TICKS;
}

/**
 * CPU ticks of every thread of the tree, by "pid/tid": the busiest thread's
 * share of a window tells a saturated single-threaded server (its event
 * loop at one core) from one the load generator or the machine held back.
 */
function threadTicks(root, { includeRoot = true } = {}) {
  const ticks = new Map();
  for (const pid of treePids(root)) {
    if (pid === root && !includeRoot) continue;
    let tasks;
    try {
      tasks = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      const stat = read(`/proc/${pid}/task/${tid}/stat`);
      if (!stat) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks.set(`${pid}/${tid}`, Number(fields[11]) + Number(fields[12]));
    }
  }
  return ticks;
}

/** The most CPU seconds any one thread spent between two threadTicks() readings. */
function busiestThreadSeconds(before, after) {
  let most = 0;
  for (const [id, t] of after) most = Math.max(most, t - (before.get(id) ?? 0));
  return most / PAGE_TICKS;
}

module.exports = {
  sampleTree,
  treeCpuSeconds,
  treePids,
  childPids,
  reapedChildrenCpuSeconds,
  threadTicks,
  busiestThreadSeconds,
};
