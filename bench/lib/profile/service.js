'use strict';

// The service under profile: started on Node with hook.js preloaded, talked
// to over the IPC channel, measured in windows of closed-loop load.
const { spawn } = require('node:child_process');
const path = require('node:path');
const { READY_LINE } = require('../tier-config');

const HOOK = path.join(__dirname, 'hook.js');
const OUTPUT_KEPT = 1 << 20;
const isNode = (exe) => exe === process.execPath || /^(node|nodejs)(\.exe)?$/.test(path.basename(exe));

/** `http://...` from the ready line's first group: a URL, or a port on loopback. */
const urlOf = (group) => (/^\d+$/.test(group) ? `http://127.0.0.1:${group}` : group.replace(/\/$/, ''));

/**
 * Starts `command` (it must run Node itself: `node server.js ...`) with the
 * hook, resolves once it prints its ready line and the hook has said hello.
 * `target` ({ file, name }) is the function to wrap.
 */
function startService(command, { target, ready = READY_LINE, env = process.env, timeoutMs = 30_000 }) {
  const [exe, ...args] = command;
  if (!isNode(exe)) {
    const why = `the command must run node itself (node server.js ...), not ${exe}: the profiler preloads into it`;
    return Promise.reject(new Error(why));
  }
  const childEnv = { ...env, ...(target && { TIER_BENCH_PROFILE_TARGET: JSON.stringify(target) }) };
  const child = spawn(exe, ['--require', HOOK, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let output = '';
  let url = null;
  let hello = null;
  const pending = new Map();
  let nextId = 0;
  // hook.js's hello, or its reply to a call.
  child.on('message', (/** @type {{ tierBenchProfile?: string, id?: number }} */ msg) => {
    if (msg?.tierBenchProfile === 'hello') hello = msg;
    else if (msg?.tierBenchProfile === 'reply') {
      const settle = pending.get(msg.id);
      pending.delete(msg.id);
      settle?.(msg);
    }
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const call = (command, fields = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, (msg) => (msg.error ? reject(new Error(`${command}: ${msg.error}`)) : resolve(msg.result)));
      child.send({ tierBenchProfile: command, id, ...fields });
    });
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`no ready line (${ready}) within ${timeoutMs / 1000} s`)), timeoutMs);
    const fail = (err) => {
      clearTimeout(timer);
      stop();
      reject(new Error(`${err.message}; its output:\n${output.slice(-4000)}`));
    };
    const check = () => {
      if (!url || !hello) return;
      clearTimeout(timer);
      resolve({ url, child, call, stop, output: () => output, target: hello.target });
    };
    const onOutput = (chunk) => {
      output += chunk;
      if (output.length > OUTPUT_KEPT) output = output.slice(-OUTPUT_KEPT / 2);
      if (!url) {
        const match = ready.exec(output);
        if (match) url = urlOf(match[1]);
      }
      check();
    };
    child.stdout.setEncoding('utf8').on('data', onOutput);
    child.stderr.setEncoding('utf8').on('data', onOutput);
    child.on('message', check);
    child.once('error', fail);
    child.once('exit', (code, signal) => {
      if (!url || !hello) fail(new Error(`exited (${code ?? signal}) before it was ready`));
    });
  });
}

module.exports = { startService, urlOf };
