import { Piscina } from 'piscina';
import { ChunkdError } from '../errors.js';
import type { Outcome, Task } from '../worker.js';

/**
 * Heap one extraction may use. PDF.js has no bound on what a stream inflates to (a 147 kB PDF
 * can inflate to 150 MB and drive the process near 1 GB), nor does mammoth or html-to-text on
 * what they build from it: extraction runs in its own worker whose V8 heap is capped, so such a
 * file kills that worker (a 413), not the server. The cap is on the JS heap; ArrayBuffer
 * contents live outside it and are not counted.
 */
export const EXTRACT_MEMORY_MB = 512;

const pools = new Map<number, Piscina<Task, Outcome>>();

/**
 * The extraction workers for a heap cap: one thread (extraction is rare next to chunking, and
 * one file at a time keeps the memory bound meaningful), started on first use and stopped after
 * a minute idle. Kept apart from the chunking pool so its heap cap never applies to chunking.
 */
function poolFor(memoryMb: number): Piscina<Task, Outcome> {
  let pool = pools.get(memoryMb);
  if (!pool) {
    const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    pool = new Piscina<Task, Outcome>({
      filename: new URL(`../worker${ext}`, import.meta.url).href,
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: memoryMb },
    });
    pools.set(memoryMb, pool);
  }
  return pool;
}

/** Run a job module (kernel/worker.ts) in an extraction worker whose heap is capped at memoryMb. */
export async function runCapped<R>(module: string, payload: unknown, memoryMb: number, signal?: AbortSignal): Promise<R> {
  let outcome: Outcome;
  try {
    outcome = await poolFor(memoryMb).run({ kind: 'job', module, payload }, { signal: signal ?? null });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') {
      throw new ChunkdError('TOO_LARGE', `Extracting the file's text needs more memory than this server allows one file (${memoryMb} MB): split it into smaller files and upload them one by one.`);
    }
    throw e;
  }
  if ('done' in outcome) return outcome.done as R;
  if ('error' in outcome) throw new ChunkdError(outcome.error.code, outcome.error.detail);
  if ('bug' in outcome) throw new Error(`The extraction worker failed: ${outcome.bug}`);
  throw new Error('The extraction worker answered nothing.');
}

/** Stop the extraction workers (tests; a server lets idle ones exit by themselves). */
export async function closeExtractPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.destroy()));
}
