'use strict';

// autocannon in this process, closed loop: `connections` clients, each sending
// its next request when the last answer arrives. The benchmark runs it in a
// load process of its own (load.js); the soak and the load test call it here.
const autocannon = require('autocannon');

/**
 * Drives `url` for warmup + duration seconds and records only responses after
 * the warm-up, so connection set-up is not measured. `onMeasureStart` and
 * `onMeasureEnd` bracket the responses counted.
 * @param {string} url
 * @param {{ connections: number, warmup: number, duration: number, paths: string[], timeout?: number,
 *   onTick?: (second: number, counter: number) => void, onMeasureStart?: () => void, onMeasureEnd?: () => void,
 *   keepLatencies?: boolean }} options
 */
function drive(
  url,
  { connections, warmup, duration, paths, timeout = 10, onTick, onMeasureStart, onMeasureEnd, keepLatencies = true },
) {
  return new Promise((resolve, reject) => {
    // 2xx answers' latencies apart from the others': a fast 503 is no service.
    const latencies = [];
    const refusedLatencies = [];
    const stats = { responses: 0, bytes: 0, non2xx: 0, errors: 0, timeouts: 0 };
    let measuring = false;
    let measureStart = 0n;
    const startMeasuring = () => {
      measuring = true;
      measureStart = process.hrtime.bigint();
      onMeasureStart?.();
    };
    if (warmup === 0) startMeasuring();
    const instance = autocannon(
      {
        url,
        connections,
        duration: warmup + duration,
        timeout,
        requests: paths.map((path) => ({ method: 'GET', path })),
      },
      (err) => {
        if (err) return reject(err);
        // First: the answers still in flight are dropped, and the server's
        // work on them must not be billed to the answers counted.
        onMeasureEnd?.();
        const seconds = Number(process.hrtime.bigint() - measureStart) / 1e9;
        const sorted = (xs) => Float64Array.from(xs).sort();
        resolve({ ...stats, seconds, latencies: sorted(latencies), refusedLatencies: sorted(refusedLatencies) });
      },
    );
    instance.on('response', (_client, statusCode, resBytes, responseTime) => {
      if (!measuring) return;
      stats.responses++;
      stats.bytes += resBytes;
      const ok = statusCode >= 200 && statusCode <= 299;
      if (!ok) stats.non2xx++;
      if (keepLatencies) (ok ? latencies : refusedLatencies).push(responseTime);
    });
    instance.on('reqError', (err) => {
      if (!measuring) return;
      stats.errors++;
      if (/timed out/.test(err.message)) stats.timeouts++;
    });
    let elapsed = 0;
    instance.on('tick', ({ counter }) => {
      elapsed++;
      onTick?.(elapsed, counter);
      if (!measuring && elapsed >= warmup) startMeasuring();
    });
  });
}

module.exports = { drive };
