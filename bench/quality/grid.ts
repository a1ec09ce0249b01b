/**
 * The fixed grid of the held-out protocol (bench/quality/heldout.ts): pipelines from which settings
 * are chosen on four corpora and scored on the fifth. Kept small (each is measured once per corpus)
 * and spread over chunk sizes, so that a small-chunk, a mid-size and a high-recall choice exist for
 * every retriever: the token rows are also the benchmark's FixedTokenChunker (identical chunks),
 * recursive is its nearest peer, and passage is tried with and without the settings that were tuned
 * on the three public corpora (target, window context, dropped repeats).
 */
import type { QualityCandidate } from './candidates.js';

const chunk = (chunker: string, config: Record<string, unknown>): QualityCandidate['steps'] => [{ type: 'chunk', chunker, config }];
const cl100k = { tokenizer: 'cl100k_base' };

export const GRID: QualityCandidate[] = [
  ...[200, 400, 800].flatMap((n) => [
    { name: `token ${n}/0`, steps: chunk('token', { ...cl100k, chunk_size: n, chunk_overlap: 0 }) },
    { name: `token ${n}/${n / 2}`, steps: chunk('token', { ...cl100k, chunk_size: n, chunk_overlap: n / 2 }) },
  ]),
  ...[200, 400, 800].map((n) => ({ name: `recursive ${n}`, steps: chunk('recursive', { ...cl100k, chunk_size: n }) })),
  ...[150, 200, 300, 500, 800, 1200].map((n) => ({ name: `passage ${n}`, steps: chunk('passage', { ...cl100k, chunk_size: n }) })),
  ...[200, 300, 400, 600].map((n) => ({ name: `passage ${n} target 1`, steps: chunk('passage', { ...cl100k, chunk_size: n, target: 1 }) })),
  { name: 'passage 200 target 0.75', steps: chunk('passage', { ...cl100k, chunk_size: 200, target: 0.75 }) },
  { name: 'passage 250 no context', steps: chunk('passage', { ...cl100k, chunk_size: 250, context: 'none' }) },
  { name: 'passage 200 window', steps: chunk('passage', { ...cl100k, chunk_size: 200, context: 'window' }) },
  { name: 'passage 200 window, repeats dropped', steps: chunk('passage', { ...cl100k, chunk_size: 200, context: 'window', repeats: 'drop' }) },
  { name: 'passage 800 repeats dropped', steps: chunk('passage', { ...cl100k, chunk_size: 800, repeats: 'drop' }) },
];
