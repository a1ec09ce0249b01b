import { convertOffsets, type OffsetUnit } from '../../kernel/offsets.js';

/**
 * Where a chunk lies in its document, for scoring:
 * - `text`: where its text first occurs, searching from the document's start (the benchmark's way:
 *   a repeated passage is placed at its first copy). As the benchmark's search does, a final '.' of
 *   the chunk text is left out of the searched text, so such a chunk's range ends one before it.
 * - `offsets`: at its own start_index/end_index.
 */
export type LocateMode = 'text' | 'offsets';

export interface LocatableChunk {
  text: string;
  start_index: number;
  end_index: number;
}

export interface Located {
  /** [start, end) per chunk, in the offset unit. */
  ranges: [number, number][];
  /** Chunks whose located start differs from their own start_index. */
  moved: number;
}

/**
 * Place chunks in `document`. Offsets (theirs and the result's) are in `unit`. In `text` mode a
 * chunk whose text is not found in the document (its text was changed by a refinery) stays at its
 * offsets.
 */
export function locateChunks(document: string, chunks: readonly LocatableChunk[], mode: LocateMode, unit: OffsetUnit): Located {
  if (mode === 'offsets') return { ranges: chunks.map((c) => [c.start_index, c.end_index]), moved: 0 };
  const utf16: number[] = [];
  const found: boolean[] = [];
  for (const c of chunks) {
    const target = c.text.endsWith('.') ? c.text.slice(0, -1) : c.text;
    const at = target.length ? document.indexOf(target) : -1;
    found.push(at >= 0);
    utf16.push(Math.max(at, 0), Math.max(at, 0) + target.length);
  }
  const converted = convertOffsets(document, utf16, unit);
  let moved = 0;
  const ranges = chunks.map((c, i): [number, number] => {
    if (!found[i]) return [c.start_index, c.end_index];
    const start = converted[2 * i]!;
    if (start !== c.start_index) moved++;
    return [start, converted[2 * i + 1]!];
  });
  return { ranges, moved };
}
