import type { ChildProcess, SpawnOptions } from 'node:child_process';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** The bounds `createHttpServer` applies unless told otherwise. */
export interface HttpLimits {
  /** An unfinished request head is cut off after this (408). */
  headersTimeoutMs: number;
  /** A whole request, body included (408). */
  requestTimeoutMs: number;
  /** No byte either way for this long closes the connection. */
  idleTimeoutMs: number;
  /** Open connections; the next one is answered 503 and closed. */
  maxConnections: number;
  /** Open connections per client address (0: no limit but maxConnections); the next one is answered 503 and closed. */
  maxConnectionsPerClient: number;
  /** Refusals that may linger reading what their client still sends. */
  lingeringRefusals: number;
  /** Requests of one connection worked on at once; pipelined ones past it wait unread. */
  pipelineDepth: number;
  /** Pipelined requests that may wait behind it; one more closes the connection after the answer in progress. */
  maxPipelined: number;
  /** Header fields of a request kept; Node drops the rest. */
  maxHeadersCount: number;
}
export const HTTP_LIMITS: Readonly<HttpLimits>;

export interface BoundedHttpServer {
  server: Server;
  /**
   * Stops accepting, answers every request whose head has arrived (a pipelining connection: what it
   * had sent), resolves when every connection is closed.
   */
  shutdown(): Promise<void>;
  openConnections(): number;
}

/**
 * An HTTP server around `handler` (an express app, say) with every bound of HttpLimits and a drain;
 * call `server.listen` yourself.
 */
export function createHttpServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  options?: Partial<HttpLimits> & {
    onRefused?: (reason: 'connection_cap' | 'client_cap') => void;
    onPipelineOverflow?: () => void;
    /** Told of every accepted connection: createArrivals() of `tier-adapters`. */
    arrivals?: { connected: () => void };
  },
): BoundedHttpServer;

/** The request's connection sent it before the previous answer was written (a server of createHttpServer). */
export function isPipelined(req: IncomingMessage): boolean;

/**
 * The answer to an error a tier threw: `[status, body, headers]`. Its own `status`, else 400 for a code in
 * `clientErrors`, else 500; a 5xx body is `failedText` (default `internal error`) unless the error is `expose`d.
 */
export function httpResponseFor(
  err: { code?: string; message?: string; status?: number; expose?: boolean; headers?: Record<string, string> },
  options?: { clientErrors?: readonly string[]; failedText?: string },
): [status: number, body: string, headers: Record<string, string>];

/** express middleware: 414 for a request target longer than MAX_REQUEST_TARGET_BYTES. */
export function refuseLongUris(req: IncomingMessage, res: ExpressResponse, next: () => void): void;

/** What refuseLongUris uses of an express response. */
export interface ExpressResponse {
  status(code: number): ExpressResponse;
  type(type: string): ExpressResponse;
  set(field: string, value: string): ExpressResponse;
  send(body: string): unknown;
}
/** A request target hyper would refuse to parse (answer it 400 to agree with a hyper server). */
export function isInvalidTarget(url: string): boolean;

/** This process's soft limit on open files (Linux), or Infinity. */
export function openFileLimit(limitsFile?: string): number;
/** The connection cap that limit leaves room for: at most `requested`. */
export function connectionCap(requested: number, openFiles: number): number;

/** `spawn` in a process group of its own (unless `detached: false`), killed if this process exits first. */
export function spawnOwned(command: string, args: string[], options?: SpawnOptions): ChildProcess;

/** Starts a server that prints `... listening on http://ADDR`; resolves with the child and that URL. */
export function spawnListening(
  command: string,
  args: string[],
  options?: {
    name?: string;
    env?: NodeJS.ProcessEnv;
    readyLine?: RegExp;
    timeoutMs?: number;
    onOutput?: (text: string) => void;
    detached?: boolean;
  },
): Promise<{ child: ChildProcess; url: string }>;

/** SIGTERM (or `signal`), resolved at the exit. */
export function stopChild(child: ChildProcess, signal?: NodeJS.Signals): Promise<void>;

export function createBackoff(options?: { initialMs?: number; maxMs?: number; resetAfterMs?: number }): {
  /** The delay before restarting a process that ran for `livedMs`. */
  next(livedMs: number): number;
};

export function superviseServer(options: {
  command: string;
  /** The command line for a port (0 at first start: the server picks a free one). */
  args: (port: number) => string[];
  name?: string;
  readyLine?: RegExp;
  log?: (line: string) => void;
  onRestart?: () => void;
}): Promise<{ url: string; close(): Promise<void> }>;
