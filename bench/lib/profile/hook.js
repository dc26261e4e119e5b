'use strict';

// Preloaded into the service by tier-bench-profile (`node --require hook.js`),
// never by a user. Two jobs, driven over the IPC channel:
//  - V8's CPU profiler (inspector), started and stopped around one window;
//  - the named function (TIER_BENCH_PROFILE_TARGET: {"file", "name"}) wrapped
//    where it is declared, so the module's own calls go through the wrapper
//    too: calls, input and output sizes; in mode "free" it answers each input
//    with the output it gave before, so the service runs as if the function
//    cost nothing (the ceiling of any port, measured rather than subtracted).
const inspector = require('node:inspector');
const fs = require('node:fs');
const { registerHooks } = require('node:module');
const { pathToFileURL } = require('node:url');

const { rewrite, KEY_NAME } = require('./rewrite');

const KEY = Symbol.for(KEY_NAME);
const SAMPLES_KEPT = 256;
// Distinct inputs remembered for mode "free": a request mix repeats its inputs.
const ANSWERS_KEPT = 4096;
const target = process.env.TIER_BENCH_PROFILE_TARGET ? JSON.parse(process.env.TIER_BENCH_PROFILE_TARGET) : null;
// Only the service itself: a child it spawns with this environment is not profiled.
delete process.env.TIER_BENCH_PROFILE_TARGET;

const byteLength = (value) => {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return value.byteLength;
  if (value === undefined) return 0;
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '');
  } catch {
    return 0;
  }
};
const keyOf = (args) =>
  args
    .map((a) => (typeof a === 'string' ? a : Buffer.isBuffer(a) ? `\u0001${a.toString('latin1')}` : JSON.stringify(a)))
    .join('\u0000');

const state = {
  mode: 'measure',
  calls: 0,
  sampled: 0,
  hits: 0,
  misses: 0,
  wrapped: false,
  samples: [],
  answers: new Map(),
};

const sample = (input, output) => {
  // A reservoir: every answer equally likely to be kept, whatever the run's length.
  state.sampled++;
  const i = state.samples.length < SAMPLES_KEPT ? state.samples.length : Math.floor(Math.random() * state.sampled);
  if (i < SAMPLES_KEPT) state.samples[i] = { input, output };
};

function wrap(fn) {
  if (typeof fn !== 'function') return fn;
  state.wrapped = true;
  const wrapped = function (...args) {
    state.calls++;
    const key = state.mode === 'free' || state.answers.size < ANSWERS_KEPT ? keyOf(args) : null;
    if (state.mode === 'free') {
      const known = state.answers.get(key);
      if (known) {
        state.hits++;
        if (known.error) throw known.error;
        return known.promise ? Promise.resolve(known.value) : known.value;
      }
      state.misses++;
    }
    const inputBytes = byteLength(args[0]);
    const remember = (answer) => {
      if (key !== null && state.answers.size < ANSWERS_KEPT && !state.answers.has(key)) state.answers.set(key, answer);
      if (!answer.error) sample(inputBytes, byteLength(answer.value));
    };
    let result;
    try {
      result = Reflect.apply(fn, this, args);
    } catch (error) {
      remember({ error });
      throw error;
    }
    if (result && typeof result.then === 'function') {
      return result.then(
        (value) => {
          remember({ value, promise: true });
          return value;
        },
        (error) => {
          remember({ error });
          throw error;
        },
      );
    }
    remember({ value: result });
    return result;
  };
  Object.defineProperty(wrapped, 'name', { value: fn.name });
  return wrapped;
}

if (target) {
  const url = pathToFileURL(target.file).href;
  registerHooks({
    load(moduleUrl, context, nextLoad) {
      const result = nextLoad(moduleUrl, context);
      if (moduleUrl !== url) return result;
      const source = rewrite(String(result.source), target.name, result.format);
      if (source === null) {
        state.unwrappable = `${target.file} binds no ${target.name} that can be wrapped`;
        return result;
      }
      return { ...result, source };
    },
  });
}

globalThis[KEY] = { wrap };

let session = null;
const commands = {
  mode({ mode }) {
    state.mode = mode;
  },
  stats() {
    return {
      wrapped: state.wrapped,
      unwrappable: state.unwrappable,
      calls: state.calls,
      hits: state.hits,
      misses: state.misses,
      samples: state.samples,
    };
  },
  async startProfile({ intervalUs }) {
    session = new inspector.Session();
    session.connect();
    const post = (method, params) =>
      new Promise((ok, fail) => session.post(method, params, (e, r) => (e ? fail(e) : ok(r))));
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: intervalUs });
    await post('Profiler.start');
  },
  async stopProfile({ file }) {
    const { profile } = await new Promise((ok, fail) => session.post('Profiler.stop', (e, r) => (e ? fail(e) : ok(r))));
    session.disconnect();
    session = null;
    fs.writeFileSync(file, JSON.stringify(profile));
  },
};

if (process.send) {
  // The channel must not keep a service alive that would otherwise exit.
  process.channel?.unref();
  // A command from service.js: its name, the id to reply with, its fields.
  process.on('message', async (/** @type {{ tierBenchProfile?: unknown, id?: number }} */ msg) => {
    if (!msg || typeof msg.tierBenchProfile !== 'string') return;
    const { tierBenchProfile: command, id } = msg;
    try {
      const result = await commands[command](msg);
      process.send({ tierBenchProfile: 'reply', id, result });
    } catch (err) {
      process.send({ tierBenchProfile: 'reply', id, error: err.message });
    }
  });
  process.send({ tierBenchProfile: 'hello', pid: process.pid, target });
}
