import type { OffsetUnit } from '../../kernel/offsets.js';

/**
 * A function giving a document's text between two offsets in `unit` (its code points, UTF-16 units
 * or UTF-8 bytes): the map to UTF-16 positions is built once per document, only when the unit needs it.
 */
export function utf16Slicer(text: string, unit: OffsetUnit): (start: number, end: number) => string {
  if (unit === 'utf16' || (unit === 'codepoint' && !/[\ud800-\udbff]/.test(text)) || (unit === 'utf8' && !/[^\x00-\x7f]/.test(text))) {
    return (start, end) => text.slice(start, end);
  }
  const at: number[] = []; // UTF-16 position of each unit boundary
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const units = unit === 'codepoint' ? 1 : cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp > 0xffff ? 4 : 3;
    for (let u = 0; u < units; u++) at.push(i);
    i += width;
  }
  at.push(text.length);
  const pos = (o: number) => at[Math.min(Math.max(o, 0), at.length - 1)]!;
  return (start, end) => text.slice(pos(start), pos(end));
}
