import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';

type Fields = Record<string, unknown>;

/**
 * JSON lines on stdout with pino, under `timestamp`, `level` (INFO, WARN,
 * ERROR) and `message`: the keys tracing-subscriber's flattened JSON writes.
 */
export function createLog(options?: { access?: boolean; fd?: number }): {
  logger: Logger;
  /** Whether a line per request is wanted (the caller writes it). */
  access: boolean;
  /**
   * Lines dropped so far: a thread of its own writes them, and past 8 MiB waiting for it (a reader that stopped
   * reading), or once the descriptor failed (the reader hung up), lines are dropped, not memory grown.
   */
  dropped(): number;
  /** Resolves true once every line taken is written, false after `ms`: before an exit. */
  flush(ms: number): Promise<boolean>;
  info(fields: Fields, message?: string): void;
  warn(fields: Fields, message?: string): void;
  error(fields: Fields, message?: string): void;
  /** The request's id: a plain `X-Request-Id` it came with, or a new UUID; the same for every line of the request. */
  requestId(req: IncomingMessage): string;
  /**
   * A refusal (`event: "refused"`), at most LINES_PER_SECOND lines a second per reason; the rest
   * counted in `suppressed`.
   */
  refused(reason: string, fields?: Fields): void;
  /** A failed request (`event: "failed"`), rate-limited the same way. */
  failed(fields: Fields, message: string): void;
};
export const LINES_PER_SECOND: number;
