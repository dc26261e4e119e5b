import type { IncomingMessage, ServerResponse } from 'node:http';
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

/**
 * In the cluster's primary: answers the workers' requests for the whole cluster's metrics, and returns what
 * collects them (a call within 250 ms of the last collection's end shares it).
 */
export function serveClusterMetrics(registry: Registry): () => Promise<string>;

/** In a worker: gives its registry to the primary when asked; returns what asks for the cluster's exposition. */
export function clusterMetricsClient(registry: Registry): () => Promise<string>;

/**
 * The operator's listener on `host:port` (default 127.0.0.1, any free port): GET or HEAD `/metrics` answers
 * `collect()`'s text (one collection shared by every scrape within 250 ms), `/healthz` `health()` as JSON;
 * other paths 404, other methods 405. At most 16 connections. `url` is where `/metrics` is.
 */
export function listenMetrics(options: {
  collect: () => Promise<string>;
  contentType: string;
  health: () => object;
  host?: string;
  port?: number;
  onError?: (err: Error) => void;
  /** Sees every request first: count the listener's own answers with it. */
  observe?: (req: IncomingMessage, res: ServerResponse) => void;
}): Promise<{ url: string; close: () => Promise<void> }>;
