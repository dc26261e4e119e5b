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

/** Runs `call`; on a Wasm trap, `replaceInstance` runs and a 500-class TierError is thrown. */
export function withTrapRecovery<T>(call: () => T, replaceInstance: () => void, name?: string): T;

/**
 * A wasm-bindgen module (the `nodejs` target's glue file) that a trap replaces: the function returned runs
 * `call` against the current instance's exports; a trap loads the glue afresh and throws a WASM_TRAP TierError.
 */
export function loadWasmBindgen<E = Record<string, (...args: unknown[]) => unknown>>(
  glue: string,
  name?: string,
): <T>(call: (exports: E) => T) => T;

/**
 * A library behind a plain C ABI (`u32 call(input, len, out_ptr, out_len)` and `void free(ptr, len)`),
 * loaded by the runtime's own FFI: node:ffi (Node 26), bun:ffi or Deno.dlopen. The function returned
 * gives `call`'s output for a string's UTF-8 bytes, or throws `decodeError(status, message)` (by
 * default an Error with that `status`); on a Node with no node:ffi, loading throws `cAbiUnavailable(name)`.
 */
export function loadCAbi(options: {
  library: string;
  call: string;
  free: string;
  name?: string;
  decodeError?: (status: number, message: string) => Error;
}): (input: string) => Buffer;

/** Why this runtime cannot load a C-ABI library for `name` (who needs it), or null. */
export function cAbiUnavailable(name?: string): string | null;

/**
 * Whether the HTTP server accepted a connection since last asked: `connected` goes to
 * createHttpServer's `arrivals` option, `sinceAsked` to an event-loop tier's `deferTurn`.
 */
export function createArrivals(): { connected: () => void; sinceAsked: () => boolean };

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
