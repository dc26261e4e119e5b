'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { childPids } = require('../../bench/lib/proc-tree');

/** The executable name of a pid, or null once it is gone. */
function commName(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
}

/**
 * The file name of a pid's executable, or null once it is gone. Unlike the
 * comm name, which a program may set (Node 24+ names its main thread
 * `node-MainThread`), it is what was started.
 */
function exeName(pid) {
  try {
    return path.basename(fs.readlinkSync(`/proc/${pid}/exe`)).replace(/ \(deleted\)$/, '');
  } catch {
    return null;
  }
}

function isAlive(pid) {
  return commName(pid) !== null;
}

/** Polls `check` until it returns truthy or `timeoutMs` passes. */
async function waitFor(check, timeoutMs = 5000, what = 'condition') {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** `promise`, or a failure after `ms`: a regression fails the test instead of hanging it. */
function within(promise, ms, what) {
  let timer;
  const deadline = new Promise(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms)),
  );
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

module.exports = { childPids, commName, exeName, isAlive, waitFor, within };
