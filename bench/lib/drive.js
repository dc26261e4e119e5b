'use strict';

// autocannon in this process, closed loop: `connections` clients, each sending
// its next request when the last answer arrives. The benchmark runs it in a
// load process of its own (load.js); the soak and the load test call it here.
const autocannon = require('autocannon');

/** The value at percentile `p` of a sorted array. */
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Drives `url` for warmup + duration seconds and records only responses after
 * the warm-up, so connection set-up is not measured. `onMeasureStart` and
 * `onMeasureEnd` bracket the responses counted.
 */
function drive(url, { connections, warmup, duration, paths, timeout = 10, onTick, onMeasureStart, onMeasureEnd, keepLatencies = true }) {
  return new Promise((resolve, reject) => {
    const latencies = [];
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
        resolve({ ...stats, seconds, latencies: Float64Array.from(latencies).sort() });
      },
    );
    instance.on('response', (client, statusCode, resBytes, responseTime) => {
      if (!measuring) return;
      stats.responses++;
      stats.bytes += resBytes;
      if (statusCode < 200 || statusCode > 299) stats.non2xx++;
      if (keepLatencies) latencies.push(responseTime);
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

module.exports = { drive, percentile };
