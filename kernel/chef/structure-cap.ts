import { emptyStructure, type Structure } from './document.js';

/** The kinds of span a structure lists, in the order they are answered. */
export const SPAN_KINDS = ['headings', 'tables', 'code', 'images', 'pages'] as const;
export type SpanKind = (typeof SPAN_KINDS)[number];

/** Spans dropped past the cap, by kind: only kinds that lost some are listed. */
export type DroppedSpans = Partial<Record<SpanKind, number>>;

/**
 * Where a capped list keeps its count of dropped spans: a registered symbol, since a chef loaded
 * in a worker may see another instance of this module than the kernel that caps its answer.
 */
const DROPPED = Symbol.for('chunkd.droppedSpans');
type Counted = unknown[] & { [DROPPED]?: { n: number } };

/**
 * An empty structure whose lists keep at most `max` spans each: a push past it is counted, not
 * kept. A chef that builds its structure on this never holds more than the cap in memory (four
 * MB of `#\n` would otherwise be two million heading objects before any cap could look at them).
 */
export function cappedStructure(max: number): Structure {
  const out = emptyStructure();
  for (const kind of SPAN_KINDS) {
    const list = out[kind] as Counted;
    const count = { n: 0 };
    Object.defineProperty(list, DROPPED, { enumerable: false, value: count });
    // An own, non-enumerable push: the list stays a plain array (JSON and structured clone see its items only).
    Object.defineProperty(list, 'push', {
      enumerable: false,
      value(...items: unknown[]) {
        const room = Math.max(0, max - list.length);
        for (let i = 0; i < Math.min(room, items.length); i++) list[list.length] = items[i];
        count.n += Math.max(0, items.length - room);
        return list.length;
      },
    });
  }
  return out;
}

/**
 * A chef's structure under the cap of `max` spans per kind: what a capped structure counted as
 * dropped, plus any list a chef built longer than the cap (cut to it), as plain arrays.
 */
export function capStructure(structure: Structure, max: number): { structure: Structure; dropped: DroppedSpans | undefined } {
  const out = emptyStructure();
  const lost: DroppedSpans = {};
  for (const kind of SPAN_KINDS) {
    const list = structure[kind] as Counted;
    const n = (list[DROPPED]?.n ?? 0) + Math.max(0, list.length - max);
    if (n > 0) lost[kind] = n;
    (out[kind] as unknown[]) = list.length > max ? list.slice(0, max) : Array.from(list);
  }
  return { structure: out, dropped: Object.keys(lost).length ? lost : undefined };
}
