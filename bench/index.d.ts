import type { ChildProcess } from 'node:child_process';

/**
 * One server the benchmark starts, twice side by side: it must listen on a free port and print its URL, and
 * share no fixed port, socket or lock file with its twin.
 */
export interface BenchTier {
  name: string;
  /**
   * The command line; `node` is the node executable to run it with, where it runs on Node
   * (a line that starts with it gets tier-bench's `--node-args` right after it).
   */
  command(options: { workers: number; env?: NodeJS.ProcessEnv; node: string }): string[];
  /** The line with the URL as group 1 (default: `listening on (http://...)`). */
  ready?: RegExp;
  /** The server answers `/metrics/event-loop` (node-server's per-worker reading). */
  eventLoop?: boolean;
  /** The started process only launches the servers: left out of the figures. */
  launcher?: boolean;
  /** A benchmark-only row; what it is. */
  reference?: string;
  /** Takes no worker count: measured at the first worker count only. */
  singleProcess?: boolean;
  /** The report and its chart group tiers by this (a rung of the ladder). */
  group?: string;
}

export interface BenchConfig {
  title: string;
  /** The anchor every ratio is read against, within each interleaved round (default `js`). */
  baseline?: string;
  /** Tiers also measured on every other supported Node line. */
  crossLine?: string[];
  /** Tiers also measured on Bun and Deno (pinned in scripts/runtime-versions), with the pinned Node's. */
  crossRuntime?: string[];
  /** Two tiers making the same call behind the service's framework and behind a bare server. */
  frameworkCost?: { framework: string; bare: string; what: string };
  /** Two tiers each that differ in one thing (`what`): `tier` over `against`, per round. */
  pairs?: { tier: string; against: string; what: string }[];
  /** The report's words for what `--workers` counts and what a response body is. */
  notes?: { workers?: string; body?: string };
  tiers: BenchTier[];
  /** The tiers `--soak` runs by default. */
  soakTiers?: string[];
  /**
   * tier-bench-profile's profile.json, relative to this file: where it exists, the report shows each tier's
   * predicted range.
   */
  prediction?: string;
  requests: {
    description: string;
    /** GET paths, in rotation. */
    paths: string[];
    /** Input lengths for the cost-against-size curve, with `ofLength`. */
    lengths?: number[];
    /** Paths whose input is `bytes` long. */
    ofLength?: (bytes: number) => string[];
  };
}

export interface StartedServer {
  url: string;
  child: ChildProcess;
  stop(): Promise<number | string | null>;
  output(): string;
}

/** Returns `config` as it is: `module.exports = defineConfig({ ... })` types the file. */
export function defineConfig(config: BenchConfig): BenchConfig;
/** Loads and checks a configuration file (default: bench.config.js in the current directory). */
export function loadConfig(file?: string): BenchConfig & { file: string };
export function tierOf(config: BenchConfig, name: string): BenchTier;
/** How a tier's server is launched: its configuration, worker count, extra arguments, CPUs, environment, runtime. */
export interface TierLaunchOptions {
  config?: BenchConfig;
  workers?: number;
  args?: string[];
  cpus?: string;
  env?: NodeJS.ProcessEnv;
  node?: string;
  nodeArgs?: string[];
}

/** Starts a tier's server as the benchmark does; resolves once it prints its URL. */
export function startTier(tier: string, options?: TierLaunchOptions & { timeoutMs?: number }): Promise<StartedServer>;
export function startServer(
  command: string,
  args: string[],
  options?: { env?: NodeJS.ProcessEnv; timeoutMs?: number; ready?: RegExp },
): Promise<StartedServer>;
export function tierCommand(tier: string, options?: TierLaunchOptions): [string, string[]];
export const READY_LINE: RegExp;

/** A size pair the function saw: its input's and its output's bytes. */
export interface CalibrationSize {
  input: number;
  output: number;
  /** Where the pair used differs from the one asked (an input shorter than its head, a size over 1 MiB). */
  note?: string;
}
export interface CalibratedTier {
  /** CPU µs per call on the calling (main) thread; median of the passes. */
  mainUs: number;
  /** CPU µs per call of the whole process tree: every thread, child processes live or exited. */
  totalUs: number;
  /** The part of totalUs spent in child processes (a process per call, a worker pool). */
  childrenUs: number;
  /** The same, net of the `js` tier (the identity in JavaScript on the same adapter), floored at 0. */
  boundaryMainUs: number;
  boundaryTotalUs: number;
  /** Calls and wall time, summed over the passes. */
  calls: number;
  wallMs: number;
  /** Calls kept in flight. */
  concurrency: number;
  passes: { mainUs: number; totalUs: number; childrenUs: number; calls: number; wallMs: number }[];
}
/** create-rust-ladder's seven tiers, then `rpc`: the hop to a Rust service over a Unix socket. */
export type CalibrationTier = 'js' | 'cli' | 'cli-pool' | 'wasm' | 'napi' | 'ffi' | 'napi-async' | 'rpc';
/**
 * Each tier's boundary cost per call on this machine, for the sizes given: a
 * prebuilt identity through create-rust-ladder's tiers, and as a Rust service
 * on a Unix socket (`rpc`), each in a fresh Node process. No Rust toolchain
 * needed; prebuilt for linux-x64 (glibc).
 */
export function calibrate(options: {
  sizes: { input: number; output: number }[];
  tiers?: CalibrationTier[];
  seconds?: number;
  warmSeconds?: number;
  passes?: number;
  node?: string;
  concurrency?: Partial<Record<CalibrationTier, number>>;
  log?: (line: string) => void;
}): Promise<{
  node: string;
  sizes: CalibrationSize[];
  seconds: number;
  passes: number;
  tiers: Partial<Record<CalibrationTier, CalibratedTier | { skipped: string }>>;
}>;
