'use strict';

// autocannon in this process, closed loop: `connections` clients, each sending
// its next request when the last answer arrives. The benchmark runs it in a
// load process of its own (load.js); the soak and the load test call it here.
const autocannon = require('autocannon');

// autocannon checks whether its time is up once per sample, 1 s by default,
// so a run ends on a whole second: 4.5 s ran 5. Ten checks a second end it
// within 0.1 s of the window, which a timer here closes exactly.
const STOP_CHECK_MS = 100;

/**
 * Drives `url` for warmup + duration seconds and records only responses after
 * the warm-up, so connection set-up is not measured. `onMeasureStart` and
 * `onMeasureEnd` bracket the responses counted: `duration` seconds, timed
 * here, not rounded to autocannon's ticks. With `head`, `onHeadEnd` fires
 * `head` seconds into the measured window, and the 2xx answers counted by
 * then are `headResponses`: whether the window's start ran at the pace of
 * its rest, that is, whether the warm-up was long enough.
 * @param {string} url
 * @param {{ connections: number, warmup: number, duration: number, paths: string[], timeout?: number,
 *   head?: number, onTick?: (second: number, counter: number) => void, onMeasureStart?: () => void,
 *   onHeadEnd?: () => void, onMeasureEnd?: () => void,
 *   keepLatencies?: boolean }} options
 */
function drive(
  url,
  {
    connections,
    warmup,
    duration,
    paths,
    timeout = 10,
    head = 0,
    onTick,
    onMeasureStart,
    onHeadEnd,
    onMeasureEnd,
    keepLatencies = true,
  },
) {
  return new Promise((resolve, reject) => {
    // 2xx answers' latencies apart from the others': a fast 503 is no service.
    const latencies = [];
    const refusedLatencies = [];
    const stats = { responses: 0, bytes: 0, non2xx: 0, errors: 0, timeouts: 0 };
    let measuring = false;
    let measureStart = 0n;
    let measured = 0;
    const split = head > 0 && head < duration;
    let headResponses = null;
    let headSeconds = 0;
    let headTimer = null;
    const endHead = () => {
      headResponses = stats.responses - stats.non2xx;
      headSeconds = Number(process.hrtime.bigint() - measureStart) / 1e9;
      onHeadEnd?.();
    };
    const startMeasuring = () => {
      measuring = true;
      measureStart = process.hrtime.bigint();
      onMeasureStart?.();
      if (split) headTimer = setTimeout(endHead, head * 1000);
    };
    // First: the answers still in flight are dropped, and the server's work
    // on them must not be billed to the answers counted.
    const stopMeasuring = () => {
      if (!measuring) return;
      measuring = false;
      // A window cut short before its head ended has no head apart from it.
      clearTimeout(headTimer);
      measured = Number(process.hrtime.bigint() - measureStart) / 1e9;
      onMeasureEnd?.();
    };
    if (warmup === 0) startMeasuring();
    const startTimer = warmup > 0 ? setTimeout(startMeasuring, warmup * 1000) : null;
    const endTimer = setTimeout(
      () => {
        stopMeasuring();
        instance?.stop();
      },
      (warmup + duration) * 1000,
    );
    // Progress once a second, counted here: autocannon's own tick counts
    // since its last sample, a tenth of a second at STOP_CHECK_MS.
    let elapsed = 0;
    let answered = 0;
    const progress = setInterval(() => {
      onTick?.(++elapsed, answered);
      answered = 0;
    }, 1000);
    let instance;
    try {
      instance = autocannon(
        {
          url,
          connections,
          // A backstop: the timer above ends the run first.
          duration: warmup + duration + 1,
          sampleInt: STOP_CHECK_MS,
          timeout,
          requests: paths.map((path) => ({ method: 'GET', path })),
        },
        (err) => {
          clearTimeout(startTimer);
          clearTimeout(headTimer);
          clearTimeout(endTimer);
          clearInterval(progress);
          if (err) return reject(err);
          stopMeasuring();
          const sorted = (xs) => Float64Array.from(xs).sort();
          resolve({
            ...stats,
            seconds: measured,
            latencies: sorted(latencies),
            refusedLatencies: sorted(refusedLatencies),
            ...(headResponses !== null && { headResponses, headSeconds }),
          });
        },
      );
    } catch (err) {
      // Options autocannon refuses: nothing runs, so no timer may either.
      clearTimeout(startTimer);
      clearTimeout(headTimer);
      clearTimeout(endTimer);
      clearInterval(progress);
      return reject(err);
    }
    instance.on('response', (_client, statusCode, resBytes, responseTime) => {
      answered++;
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
  });
}

module.exports = { drive };
