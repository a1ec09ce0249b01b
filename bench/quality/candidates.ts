/**
 * The configurations bench/quality measures. Each is a pipeline's steps (a chunk step, then any
 * refine steps) as POST /v1/evaluate takes them. `name` is the row's label; rows named as in the
 * benchmark data's reference-results.md are compared with their reference row.
 */
export interface QualityCandidate {
  name: string;
  steps: { type: 'chunk' | 'refine'; chunker?: string; refinery?: string; config?: Record<string, unknown> }[];
}

const chunk = (chunker: string, config: Record<string, unknown>): QualityCandidate['steps'] => [{ type: 'chunk', chunker, config }];
const cl100k = { tokenizer: 'cl100k_base' };

/** chunkd's chunkers at 200/400/800 tokens (fast: in bytes, about 4 per token), with their other defaults. */
export const CHUNKERS: QualityCandidate[] = [
  ...[200, 400, 800].flatMap((n) => [
    { name: `chunkd token ${n}/0`, steps: chunk('token', { ...cl100k, chunk_size: n, chunk_overlap: 0 }) },
    { name: `chunkd token ${n}/${n / 2}`, steps: chunk('token', { ...cl100k, chunk_size: n, chunk_overlap: n / 2 }) },
  ]),
  ...[200, 400, 800].map((n) => ({ name: `chunkd recursive ${n}`, steps: chunk('recursive', { ...cl100k, chunk_size: n }) })),
  ...[200, 400, 800].map((n) => ({ name: `chunkd sentence ${n}`, steps: chunk('sentence', { ...cl100k, chunk_size: n }) })),
  ...[200, 400, 800].map((n) => ({ name: `chunkd semantic ${n}${n === 200 ? ' (glove tok)' : ''}`, steps: chunk('semantic', { chunk_size: n }) })),
  { name: 'chunkd semantic 512 (default)', steps: chunk('semantic', {}) },
  ...[800, 1600, 3200].map((n) => ({ name: `chunkd fast ${n}B`, steps: chunk('fast', { chunk_size: n }) })),
];

/** The consistency row: chunkd's token chunker gives exactly the benchmark's FixedTokenChunker chunks. */
export const CONSISTENCY = 'chunkd token 200/0';

/**
 * Configurations made to lead the benchmark (new chunkers, options, refineries, presets). Add each
 * here with a name of its own; the table shows them after chunkd's chunkers, and the goal check
 * (every benchmark chunker matched or beaten on recall and IoU) counts them.
 */
export const EXTRA: QualityCandidate[] = [
  // The passage chunker (plugins/passage): balanced chunks at the strongest boundaries, with the
  // top-level heading as context (read by BM25 and embedded with the text), or without it ('no context').
  ...[150, 200, 300, 500, 800, 1600].map((n) => ({ name: `chunkd passage ${n}`, steps: chunk('passage', { ...cl100k, chunk_size: n }) })),
  { name: 'chunkd passage 200 target 0.75', steps: chunk('passage', { ...cl100k, chunk_size: 200, target: 0.75 }) },
  { name: 'chunkd passage 300 target 0.75', steps: chunk('passage', { ...cl100k, chunk_size: 300, target: 0.75 }) },
  ...[150, 250, 600, 1600].map((n) => ({ name: `chunkd passage ${n} no context`, steps: chunk('passage', { ...cl100k, chunk_size: n, context: 'none' }) })),
];
