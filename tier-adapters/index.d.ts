import type { ChildProcess, SpawnOptions } from 'node:child_process';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** Per call: a `signal` that aborts a waiting call (its client hung up); `low` priority waits behind `normal`. */
export interface RunOptions {
  signal?: AbortSignal;
  priority?: 'low' | 'normal';
}

/** What every factory returns. */
export interface Tier<I, O> {
  run(input: I, options?: RunOptions): Promise<O>;
  /** Refuses new calls (`TIER_CLOSED`, 503), finishes what runs, releases workers. */
  close(): Promise<void>;
  /** Calls being worked on now (a gauge read at scrape time). */
  readonly running: number;
  /** Calls waiting. */
  readonly queued: number;
}

export interface QueueOptions {
  /** Calls that may wait; past it a 503 `SERVER_BUSY` (default 512). */
  maxQueue?: number;
}

export function createEventLoopTier<I, O>(
  fn: (input: I) => O,
  options?: QueueOptions & { sliceMs?: number; deferTurn?: () => boolean },
): Tier<I, Awaited<O>>;

export function createThreadPoolTier<I, O>(
  fn: (input: I) => Promise<O>,
  options: QueueOptions & { concurrency: number },
): Tier<I, O>;

export interface ChildExit {
  name: string;
  code: number | null;
  signal: string | null;
  stderr: string;
}

export function createStdioPoolTier(
  options: QueueOptions & {
    command: string;
    args?: string[];
    name?: string;
    size?: number;
    pipelineDepth?: number;
    deadlineMs?: number;
    decodeError?: (status: number, payload: Buffer) => Error;
    /** A header announcing a longer answer is junk: the worker is killed and replaced (default 16 MiB). */
    maxAnswerBytes?: number;
    /** Whether a whole frame is a real answer; one that is not kills and replaces the worker. */
    checkAnswer?: (status: number, payload: Buffer) => boolean;
    log?: (line: string) => void;
    onRestart?: () => void;
  },
): Tier<string | Uint8Array, Buffer>;

export function createSpawnTier(
  options: QueueOptions & {
    command: string;
    args?: string[];
    name?: string;
    concurrency?: number;
    decodeFailure?: (exit: ChildExit) => Error;
  },
): Tier<string | Uint8Array, Buffer>;

/** The error for a child that failed in no way `decodeFailure` knows: 500. */
export function childFailed(exit: ChildExit): TierError;

export function createHttpUpstreamTier<I = string>(
  options: QueueOptions & {
    url: string;
    path: (input: I) => string;
    name?: string;
    connections?: number;
    timeoutMs?: number;
    keepAliveTimeoutMs?: number;
  },
): Tier<I, Buffer>;

export function createRpcTier(
  options: QueueOptions & {
    path?: string;
    host?: string;
    port?: number;
    name?: string;
    connections?: number;
    callsPerConnection?: number;
    deadlineMs?: number;
    idleMs?: number;
    maxAnswerBytes?: number;
    decodeError?: (status: number, payload: Buffer) => Error;
  },
): Tier<string | Uint8Array, Buffer>;

export function superviseServer(options: {
  command: string;
  /** The command line for a port (0 at first start: the server picks a free one). */
  args: (port: number) => string[];
  name?: string;
  readyLine?: RegExp;
  log?: (line: string) => void;
  onRestart?: () => void;
}): Promise<{ url: string; close(): Promise<void> }>;

/** Runs `call`; on a Wasm trap, `replaceInstance` runs and a 500-class TierError is thrown. */
export function withTrapRecovery<T>(call: () => T, replaceInstance: () => void, name?: string): T;

/** `status`, `expose` and `headers` follow the http-errors convention. */
export class TierError extends Error {
  constructor(
    code: string,
    message: string,
    options?: { status?: number; expose?: boolean; headers?: Record<string, string>; cause?: unknown },
  );
  code: string;
  status?: number;
  expose?: boolean;
  headers?: Record<string, string>;
}

/** 503 `server busy` with `Retry-After`. */
export function serverBusy(): TierError;
export const SERVER_BUSY: string;
export const RETRY_AFTER_SECONDS: number;

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

export function createLoopQueue(options?: { maxQueue?: number; sliceMs?: number; deferTurn?: () => boolean }): {
  run<T>(job: () => T, options?: RunOptions): Promise<Awaited<T>>;
  readonly size: number;
};

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
  /** The request's connection sent it before the previous answer was written. */
  isPipelined(req: IncomingMessage): boolean;
  openConnections(): number;
  /** A connection was accepted since last asked (pass as an event-loop tier's `deferTurn`). */
  acceptedSinceAsked(): boolean;
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
  },
): BoundedHttpServer;

/** express middleware: 414 for a request target longer than MAX_REQUEST_TARGET_BYTES. */
export function refuseLongUris(req: IncomingMessage, res: ServerResponse, next: () => void): void;
/** A request target hyper would refuse to parse (answer it 400 to agree with a hyper server). */
export function isInvalidTarget(url: string): boolean;
export const MAX_REQUEST_TARGET_BYTES: number;
export const URI_TOO_LONG: string;
/** How long an answered-and-closing connection keeps draining what its client sends. */
export const LINGER_MS: number;

/** This process's soft limit on open files (Linux), or Infinity. */
export function openFileLimit(limitsFile?: string): number;
/** The connection cap that limit leaves room for: at most `requested`. */
export function connectionCap(requested: number, openFiles: number): number;
