import type { Registry } from 'prom-client';

/**
 * `http_requests_total{route,status,tier}` and
 * `http_request_duration_seconds{route,tier}` in `registry`, kept as plain
 * numbers and handed over only when scraped. `routes`: the label values, the
 * last one taking every other path.
 */
export function createRequestMetrics(options: { registry: Registry; buckets: number[]; routes: string[] }): {
  /** One answered request: its route (one of `routes`), status and seconds. */
  record(route: string, status: number, seconds: number): void;
  /** The `tier` label of every series from now on. */
  set tier(name: string);
};

/** In the cluster's primary: answers the workers' requests for the whole cluster's metrics. */
export function serveClusterMetrics(registry: Registry): void;

/** In a worker: gives its registry to the primary when asked; returns what asks for the cluster's exposition. */
export function clusterMetricsClient(registry: Registry): () => Promise<string>;
