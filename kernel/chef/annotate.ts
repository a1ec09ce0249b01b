import type { Span as ChunkSpan } from '../chunk.js';
import type { Span, Structure } from './document.js';

/** The kind of block a chunk holds: a table, a fenced code block, or anything else (text). */
export type BlockKind = 'text' | 'table' | 'code';

/**
 * What each chunk of a processed document carries in `metadata`, from the document's structure
 * (all offsets UTF-16): `headings`, the heading path in force where the chunk starts (the last
 * heading of each level above it, outermost first); `blocks`, the kinds of block it holds
 * (text, table, code), in that order; `pages`, the pages it spans. A key is there only when the
 * structure has that kind at all (a text without headings gets no `headings`), so a document
 * without structure gives chunks exactly as a plain text does.
 */
export function structureMetadata(text: string, structure: Structure, spans: readonly ChunkSpan[]): (Record<string, unknown> | undefined)[] {
  const { headings, pages } = structure;
  const blocks: { start: number; end: number; kind: BlockKind }[] = [
    ...structure.tables.map((s) => ({ ...s, kind: 'table' as const })),
    ...structure.code.map((s) => ({ ...s, kind: 'code' as const })),
  ].sort((a, b) => a.start - b.start);
  const withHeadings = headings.length > 0;
  const withBlocks = blocks.length > 0;
  const withPages = pages.length > 0;
  if (!withHeadings && !withBlocks && !withPages) return spans.map(() => undefined);
  // One sweep in order of chunk start (a chunker's order already): the heading path and the first
  // block and page that can still meet a chunk only move forward, so a document of 10^5 chunks and
  // 10^5 headings costs their sum, not their product.
  const order = spans.map((_, i) => i);
  if (spans.some((s, i) => i > 0 && s.start < spans[i - 1]!.start)) order.sort((a, b) => spans[a]!.start - spans[b]!.start);
  const out: Record<string, unknown>[] = new Array(spans.length);
  const path = new HeadingPath(headings);
  let block = 0;
  let page = 0;
  for (const i of order) {
    const s = spans[i]!;
    const meta: Record<string, unknown> = {};
    if (withHeadings) meta.headings = path.at(s.start);
    if (withBlocks) {
      while (block < blocks.length && blocks[block]!.end <= s.start) block++;
      meta.blocks = blockKinds(text, blocks, s, block);
    }
    if (withPages) {
      while (page < pages.length && before(pages[page]!, s.start)) page++;
      meta.pages = overlapping(pages, s, page).map((p) => p.number);
    }
    out[i] = meta;
  }
  return out;
}

/** The heading path in force at `at`: each heading that starts at or before it closes the deeper ones before it. */
export function headingPath(headings: Structure['headings'], at: number): string[] {
  return new HeadingPath(headings).at(at);
}

/** headingPath for positions that never go back: each heading is taken in once. */
class HeadingPath {
  private readonly path: { level: number; text: string }[] = [];
  private next = 0;

  constructor(private readonly headings: Structure['headings']) {}

  at(at: number): string[] {
    const { headings, path } = this;
    for (; this.next < headings.length && headings[this.next]!.start <= at; this.next++) {
      const h = headings[this.next]!;
      while (path.length && path[path.length - 1]!.level >= h.level) path.pop();
      path.push(h);
    }
    return path.map((h) => h.text);
  }
}

/** The kinds of block in the span, scanning from `from` (blocks before it end before the span starts). */
function blockKinds(text: string, blocks: readonly { start: number; end: number; kind: BlockKind }[], s: Span, from: number): BlockKind[] {
  const kinds = new Set<BlockKind>();
  let at = s.start;
  let loose = false; // non-blank text outside every block
  for (let i = from; i < blocks.length; i++) {
    const b = blocks[i]!;
    if (b.end <= s.start || b.start === b.end) continue;
    if (b.start >= s.end) break;
    if (b.start > at && text.slice(at, b.start).trim() !== '') loose = true;
    kinds.add(b.kind);
    at = Math.max(at, b.end);
  }
  if (at < s.end && text.slice(at, s.end).trim() !== '') loose = true;
  return [...(loose ? (['text'] as const) : []), ...(['table', 'code'] as const).filter((k) => kinds.has(k))];
}

/** A page that no span starting at or after `start` can meet: it ends before, or it is empty and lies before. */
const before = (p: Span, start: number): boolean => p.end < start || (p.end === start && p.start < p.end);

/** Pages in the span (an empty page counts where it lies), scanning from `from`; pages are in order and do not overlap. */
function overlapping<T extends Span>(spans: readonly T[], s: Span, from: number): T[] {
  const out: T[] = [];
  for (let i = from; i < spans.length && spans[i]!.start <= s.end; i++) {
    const p = spans[i]!;
    if ((p.start < s.end && p.end > s.start) || (p.start === p.end && p.start >= s.start && p.start < s.end)) out.push(p);
  }
  return out;
}
