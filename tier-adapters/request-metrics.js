'use strict';

// The per-request series (http_requests_total, http_request_duration_seconds)
// kept as plain numbers and handed to prom-client's registry only when it is
// scraped. prom-client's own inc() and observe() hash and validate the label
// set on every call; here a request costs a Map lookup and a few additions.
// The registry sums these across cluster workers like any of its own
// counters and histograms. prom-client is an optional peer dependency:
// install it to use `tier-adapters/prometheus`.

/**
 * @param {{ registry: import('prom-client').Registry, buckets: number[], routes: string[] }} options
 *   routes: the label values, the last one taking every other path.
 */
function createRequestMetrics({ registry, buckets, routes }) {
  const byRoute = new Map(
    routes.map((route) => [
      route,
      { count: 0, sum: 0, buckets: new Float64Array(buckets.length + 1), statuses: new Map() },
    ]),
  );
  let tier = '';

  const counter = {
    name: 'http_requests_total',
    help: 'Requests answered, by route, status and tier.',
    type: 'counter',
    aggregator: 'sum',
    get() {
      const values = [];
      for (const [route, series] of byRoute) {
        for (const [status, value] of series.statuses) values.push({ labels: { route, status, tier }, value });
      }
      return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
    },
  };
  const histogram = {
    name: 'http_request_duration_seconds',
    help: "Time from a request's head to its answer, by route and tier.",
    type: 'histogram',
    aggregator: 'sum',
    get() {
      const values = [];
      for (const [route, series] of byRoute) {
        if (!series.count) continue;
        let cumulative = 0;
        buckets.forEach((le, i) => {
          cumulative += series.buckets[i];
          values.push({ labels: { le, route, tier }, value: cumulative, metricName: `${this.name}_bucket` });
        });
        values.push({ labels: { le: '+Inf', route, tier }, value: series.count, metricName: `${this.name}_bucket` });
        values.push({ labels: { route, tier }, value: series.sum, metricName: `${this.name}_sum` });
        values.push({ labels: { route, tier }, value: series.count, metricName: `${this.name}_count` });
      }
      return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
    },
  };
  // prom-client reads only these fields of a metric; the casts say so to the type checker.
  registry.registerMetric(/** @type {any} */ (counter));
  registry.registerMetric(/** @type {any} */ (histogram));

  return {
    /** The `tier` label from now on. */
    set tier(name) {
      tier = name;
    },
    /** One answered request; `route` is one of `routes`. */
    record(route, status, seconds) {
      const series = byRoute.get(route);
      series.statuses.set(status, (series.statuses.get(status) ?? 0) + 1);
      series.count++;
      series.sum += seconds;
      let i = 0;
      while (i < buckets.length && seconds > buckets[i]) i++;
      series.buckets[i]++;
    },
  };
}

module.exports = { createRequestMetrics };
