import { settingOf } from '../settings.js';
/**
 * A candidate's chunks as a store retriever needs them on the calling thread: compact rows (where
 * each chunk is scored, its own offsets, its text) and every vector in one Float32Array that is
 * moved, not copied, out of the candidate's pool task, as a write step's rows are
 * (kernel/engine/steps/write.ts). No chunk object crosses; the calling thread makes the store's rows from
 * these, one document at a time.
 */
import { tooLarge } from '../../kernel/caps.js';
import { setImmediate as tick } from 'node:timers/promises';
import { STORE_ROWS_PER_TURN, type ChunkToStore } from '../../kernel/handshake.js';

import type { Range } from './ranges.js';

/** Numbers per row in `spans`. */
const SPAN = 5;

export interface EvalRows {
  /** Per row: document index, start and end where it is scored, start and end of its own offsets (in the evaluation's unit). */
  spans: Float64Array;
  /**
   * Every row's text, one after the other: one string crosses threads as one copy, where 100,000
   * strings held the calling thread's event loop ~80 ms as the answer arrived (bench/big-write.ts
   * --evaluate). `textEnds` has where each row's text ends (UTF-16 units).
   */
  text: string;
  textEnds: Uint32Array;
  /** Every row's context (what its index text holds before its text, kernel/index-text.ts), one after the other; a row without one has an empty one. */
  context: string;
  contextEnds: Uint32Array;
  /** Unit vectors, `dimension` numbers per row, one row after the other. */
  vectors: Float32Array;
  dimension: number;
}

/** The rows of a candidate's chunks, in scoring order (row i is chunk i of the candidate). */
export function evalRows(
  chunks: readonly { range: Range; own: [number, number]; text: string; context?: string }[],
  documentIndex: (id: string) => number,
  vectors: readonly ArrayLike<number>[],
): EvalRows {
  const dimension = vectors[0]?.length ?? 0;
  const spans = new Float64Array(chunks.length * SPAN);
  const flat = new Float32Array(chunks.length * dimension);
  chunks.forEach((c, i) => {
    spans.set([documentIndex(c.range.doc), c.range.start, c.range.end, c.own[0], c.own[1]], i * SPAN);
    flat.set(vectors[i]!, i * dimension);
  });
  const texts = joined(chunks.map((c) => c.text));
  const contexts = joined(chunks.map((c) => c.context ?? ''));
  return { spans, text: texts.all, textEnds: texts.ends, context: contexts.all, contextEnds: contexts.ends, vectors: flat, dimension };
}

/** Strings one after the other, with where each ends. */
function joined(parts: string[]): { all: string; ends: Uint32Array } {
  const ends = new Uint32Array(parts.length);
  let at = 0;
  parts.forEach((p, i) => (ends[i] = at += p.length));
  return { all: parts.join(''), ends };
}

/** Row `i`'s part of a joined string. */
const partOf = (all: string, ends: Uint32Array, i: number): string => all.slice(i > 0 ? ends[i - 1]! : 0, ends[i]!);

/** Row `i`'s text. */
const rowText = (rows: EvalRows, i: number): string => partOf(rows.text, rows.textEnds, i);

/** The buffers to move with the rows. */
export const rowBuffers = (rows: EvalRows): ArrayBuffer[] => [rows.spans, rows.vectors, rows.textEnds, rows.contextEnds].map((a) => a.buffer as ArrayBuffer);

/** The bytes the rows take as they cross threads. */
export const rowBytes = (rows: EvalRows): number =>
  rows.spans.byteLength + rows.vectors.byteLength + Buffer.byteLength(rows.text) + Buffer.byteLength(rows.context);

/**
 * Rows are held to the cap of a candidate's chunks (--max-output-bytes, as if they were one
 * answer): a 413 before they leave the task, saying to evaluate less.
 */
export function checkRowBytes(rows: EvalRows, limit: number): void {
  const bytes = rowBytes(rows);
  if (bytes > limit) {
    throw tooLarge(
      `A candidate's chunks and vectors for the store would take ${bytes.toLocaleString('en')} bytes`,
      limit,
      settingOf('maxOutputBytes'),
      'Evaluate fewer or shorter documents, or candidates with larger chunks',
    );
  }
}

export const rowCount = (rows: EvalRows): number => rows.textEnds.length;

/** Where row `i` is scored. */
export function rowRange(rows: EvalRows, documents: readonly { id: string }[], i: number): Range {
  const at = i * SPAN;
  return { doc: documents[rows.spans[at]!]!.id, start: rows.spans[at + 1]!, end: rows.spans[at + 2]! };
}

/**
 * The rows of each document as chunks to write (each carrying its row index in `metadata.eval_row`,
 * how a hit is scored), made one document at a time on the calling thread, a slice per turn of the
 * event loop (STORE_ROWS_PER_TURN); each embedding a view into the rows' vectors, never a copy.
 */
export async function* documentChunks(rows: EvalRows, documents: readonly { id: string }[]): AsyncGenerator<{ document: string; chunks: ChunkToStore[] }> {
  const byDoc = new Map<number, number[]>();
  for (let i = 0; i < rowCount(rows); i++) {
    const d = rows.spans[i * SPAN]!;
    let list = byDoc.get(d);
    if (!list) byDoc.set(d, (list = []));
    list.push(i);
  }
  const { dimension } = rows;
  let made = 0;
  for (const [d, indices] of byDoc) {
    const chunks: ChunkToStore[] = [];
    for (const i of indices) {
      if (++made % STORE_ROWS_PER_TURN === 0) await tick();
      const context = partOf(rows.context, rows.contextEnds, i);
      chunks.push({
        id: '',
        text: rowText(rows, i),
        start_index: rows.spans[i * SPAN + 3]!,
        end_index: rows.spans[i * SPAN + 4]!,
        token_count: 0,
        metadata: { eval_row: i },
        // indexed as the evaluation indexed it: its context before its text
        ...(context ? { context } : {}),
        embedding: rows.vectors.subarray(i * dimension, (i + 1) * dimension),
      });
    }
    yield { document: documents[d]!.id, chunks };
  }
}
