/**
 * The shared harness: what a suite declares, and how one case is timed (warm-up, repeat, median).
 * Each throughput case runs in its own child process (bench/child.ts), so its peak RSS is its own
 * and no case inherits another's JIT state or heap.
 */

export interface Options {
  /** A fast smoke run: small inputs, one timed run per case. */
  quick: boolean;
  /** Plugins in the registry (a suite reports a missing one instead of failing). */
  plugins: ReadonlySet<string>;
}

/** Who a row is: ours, a peer library, or a floor (the raw work a chunker cannot avoid). */
export type Role = 'ours' | 'peer' | 'floor';

export interface Prepared {
  /** Input size of one run, in UTF-8 bytes (MB/s is counted on it). */
  bytes: number;
  /** One run over the whole input; returns the number of chunks (or 0 for a floor). */
  run(): Promise<number> | number;
}

export interface Case {
  id: string;
  label: string;
  role: Role;
  /** Cases with the same job do the same work on the same text with the same tokenizer. */
  job: string;
  /** Set when the case cannot run here (e.g. its plugin is not merged yet): reported, not run. */
  missing?: string;
  /** Loads the corpus and builds the chunker; runs in the child process only. */
  prepare(): Promise<Prepared>;
}

/** A ratio the issue sets as a target: `ours / ref ≥ min`, both case ids of the same suite, or an absolute floor. */
export interface Target {
  what: string;
  ours: string;
  /** A case id: the target is a ratio. Absent: `min` is in MB/s. */
  ref?: string;
  min: number;
}

export interface Measured {
  /** Timed runs (0 when the case was stopped at the time limit: then medianMs is a lower bound). */
  runs: number;
  medianMs: number;
  /** Median CPU time of one run (user + system of this process, every thread: GC helpers included), in ms. */
  cpuMs: number;
  bytes: number;
  chunks: number;
  /** Peak resident set size of the child process, in MB. */
  peakRssMb: number;
}

export interface ThroughputSuite {
  kind: 'throughput';
  name: string;
  title: string;
  /** A paragraph for results.md: corpus, config, and what the rows mean. */
  about(options: Options): string;
  cases(options: Options): Case[];
  targets: Target[];
}

/** A suite that measures something other than throughput (HTTP, the worker pool) and renders its own section. */
export interface CustomSuite {
  kind: 'custom';
  name: string;
  title: string;
  run(options: Options): Promise<Section>;
}

export type Suite = ThroughputSuite | CustomSuite;

export interface Check {
  /** The target as the issue states it; also the key of its analysis in bench/why.ts. */
  what: string;
  /** The measured figure, formatted ('1.23×', '12 ms'); undefined when it could not be measured. */
  measured: string | undefined;
  met: boolean | undefined;
  /** Why it was not measured. */
  note?: string;
}

/** A rendered part of results.md plus the target checks it contributes. */
export interface Section {
  title: string;
  body: string;
  checks: Check[];
}

export interface Timing {
  /** A warm-up run slower than this is taken as the one timed run: JIT warm-up is noise next to it. */
  slowMs: number;
  warmup: number;
  minRuns: number;
  minMs: number;
  maxMs: number;
  maxRuns: number;
}

export const timing = (quick: boolean): Timing =>
  quick ? { slowMs: 0, warmup: 0, minRuns: 1, minMs: 0, maxMs: 0, maxRuns: 1 } : { slowMs: 4000, warmup: 1, minRuns: 3, minMs: 800, maxMs: 5000, maxRuns: 30 };

/** Full runs repeat every case in this many rounds (fresh processes), so noise on the shared cores hits every row alike. */
export const rounds = (quick: boolean) => (quick ? 1 : 2);
/** A case still running after this long is stopped and reported as slower than the limit. */
export const caseLimitS = (quick: boolean) => (quick ? 30 : 45);

/**
 * Time `fn`: `warmup` untimed runs, then timed runs until both minimums are reached (or a cap is),
 * and take the median, which one GC pause or a neighbour's burst on the shared cores cannot move.
 */
export async function measure(fn: () => Promise<number> | number, t: Timing): Promise<{ runs: number; medianMs: number; cpuMs: number; result: number }> {
  let result = 0;
  for (let i = 0; i < t.warmup; i++) {
    const start = performance.now();
    const cpu = process.cpuUsage();
    result = await fn();
    const ms = performance.now() - start;
    if (ms >= t.slowMs && t.slowMs > 0) return { runs: 1, medianMs: ms, cpuMs: cpuMsSince(cpu), result };
  }
  const times: number[] = [];
  const cpus: number[] = [];
  const began = performance.now();
  for (;;) {
    const start = performance.now();
    const cpu = process.cpuUsage();
    result = await fn();
    cpus.push(cpuMsSince(cpu));
    times.push(performance.now() - start);
    const elapsed = performance.now() - began;
    const enough = times.length >= t.minRuns && elapsed >= t.minMs;
    if (enough || elapsed >= t.maxMs || times.length >= t.maxRuns) break;
  }
  return { runs: times.length, medianMs: median(times), cpuMs: median(cpus), result };
}

/**
 * CPU time this process spent since `from` (process.cpuUsage), in ms: unlike wall time, a
 * neighbour's load on the shared cores barely moves it, so ratios judged by it survive a busy machine.
 */
export function cpuMsSince(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1e3;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export const mbPerS = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1e3);
export const utf8Bytes = (text: string | string[]) => (Array.isArray(text) ? text : [text]).reduce((n, t) => n + Buffer.byteLength(t, 'utf8'), 0);
export const peakRssMb = () => process.resourceUsage().maxRSS / 1024;
