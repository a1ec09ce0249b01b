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
  return spans.map((s) => {
    const meta: Record<string, unknown> = {};
    if (withHeadings) meta.headings = headingPath(headings, s.start);
    if (withBlocks) meta.blocks = blockKinds(text, blocks, s);
    if (withPages) meta.pages = overlapping(pages, s).map((p) => p.number);
    return meta;
  });
}

/** The heading path in force at `at`: each heading that starts at or before it closes the deeper ones before it. */
export function headingPath(headings: Structure['headings'], at: number): string[] {
  const path: { level: number; text: string }[] = [];
  for (const h of headings) {
    if (h.start > at) break;
    while (path.length && path[path.length - 1]!.level >= h.level) path.pop();
    path.push(h);
  }
  return path.map((h) => h.text);
}

function blockKinds(text: string, blocks: readonly { start: number; end: number; kind: BlockKind }[], s: Span): BlockKind[] {
  const kinds = new Set<BlockKind>();
  let at = s.start;
  let loose = false; // non-blank text outside every block
  for (const b of blocks) {
    if (b.end <= s.start || b.start === b.end) continue;
    if (b.start >= s.end) break;
    if (b.start > at && text.slice(at, b.start).trim() !== '') loose = true;
    kinds.add(b.kind);
    at = Math.max(at, b.end);
  }
  if (at < s.end && text.slice(at, s.end).trim() !== '') loose = true;
  return [...(loose ? (['text'] as const) : []), ...(['table', 'code'] as const).filter((k) => kinds.has(k))];
}

const overlapping = <T extends Span>(spans: readonly T[], s: Span): T[] => spans.filter((p) => p.start < s.end && p.end > s.start || (p.start === p.end && p.start >= s.start && p.start < s.end));
