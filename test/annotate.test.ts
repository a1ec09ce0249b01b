/**
 * Chunk metadata from a document's structure (kernel/chef/annotate.ts) is one sweep: equal to the
 * definition (each chunk looked up against every heading, block and page) on random structures,
 * and linear: 10× the chunks and spans cost about 10× the time, not 100× (judged by that ratio
 * with a wide margin, as test/chef-linear.test.ts judges the chefs).
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import fc from 'fast-check';
import { structureMetadata } from '../kernel/chef/annotate.js';
import type { Structure } from '../kernel/chef/document.js';

type Span = { start: number; end: number; tokenCount: number };

/** The definition, chunk by chunk against every span (quadratic; the reference). */
function reference(text: string, structure: Structure, spans: readonly Span[]): (Record<string, unknown> | undefined)[] {
  const blocks = [...structure.tables.map((s) => ({ ...s, kind: 'table' })), ...structure.code.map((s) => ({ ...s, kind: 'code' }))].sort(
    (a, b) => a.start - b.start,
  );
  if (!structure.headings.length && !blocks.length && !structure.pages.length) return spans.map(() => undefined);
  return spans.map((s) => {
    const meta: Record<string, unknown> = {};
    if (structure.headings.length) {
      const path: { level: number; text: string }[] = [];
      for (const h of structure.headings) {
        if (h.start > s.start) break;
        while (path.length && path.at(-1)!.level >= h.level) path.pop();
        path.push(h);
      }
      meta.headings = path.map((h) => h.text);
    }
    if (blocks.length) {
      // By characters, not by a sweep: a kind for every non-empty block the chunk overlaps, and
      // `text` when any non-blank character of the chunk lies outside every block.
      const kinds = new Set(blocks.filter((b) => b.start < b.end && b.start < s.end && b.end > s.start).map((b) => b.kind));
      let loose = false;
      for (let i = s.start; i < s.end && !loose; i++) loose = text[i]!.trim() !== '' && !blocks.some((b) => b.start <= i && i < b.end);
      meta.blocks = [...(loose ? ['text'] : []), ...['table', 'code'].filter((k) => kinds.has(k))];
    }
    if (structure.pages.length)
      meta.pages = structure.pages
        .filter((p) => (p.start < s.end && p.end > s.start) || (p.start === p.end && p.start >= s.start && p.start < s.end))
        .map((p) => p.number);
    return meta;
  });
}

/** Sorted, non-overlapping spans of [0, length): cut points, each span between two of them (maybe empty). */
const cuts = (length: number, max: number) =>
  fc.uniqueArray(fc.integer({ min: 0, max: length }), { maxLength: max }).map((xs) => {
    const sorted = xs.sort((a, b) => a - b);
    return sorted.slice(1).map((end, i) => ({ start: sorted[i]!, end }));
  });

test('the sweep equals the definition on random structures and chunk spans (in order and out of order)', () => {
  const text = 'ab  \n cd\t\n\nef gh  ij\n'.repeat(5);
  const n = text.length;
  fc.assert(
    fc.property(
      cuts(n, 12),
      fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 12 }),
      cuts(n, 8),
      cuts(n, 8),
      cuts(n, 6),
      fc.array(fc.tuple(fc.integer({ min: 0, max: n }), fc.integer({ min: 0, max: 20 })), { maxLength: 15 }),
      fc.boolean(),
      (headingSpans, levels, tables, code, pages, raw, sorted) => {
        const structure: Structure = {
          headings: headingSpans.map((s, i) => ({ ...s, level: levels[i] ?? 1, text: `h${i}` })),
          tables,
          code: code.map((s) => ({ ...s, language: null })),
          images: [],
          pages: pages.map((s, i) => ({ ...s, number: i + 1 })),
        };
        let spans = raw.map(([start, len]) => ({ start, end: Math.min(n, start + len), tokenCount: 0 }));
        if (sorted) spans = spans.sort((a, b) => a.start - b.start);
        assert.deepEqual(structureMetadata(text, structure, spans), reference(text, structure, spans));
      },
    ),
    { numRuns: 3_000 },
  );
});

function fastest(run: () => unknown, times = 3): number {
  let best = Infinity;
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    run();
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

test('linear in chunks × spans: 10× as many chunks, headings, blocks and pages cost about 10× the time', () => {
  const make = (n: number) => {
    const text = 'x\n'.repeat(n * 4);
    const structure: Structure = {
      headings: Array.from({ length: n }, (_, i) => ({ start: i * 8, end: i * 8 + 1, level: (i % 3) + 1, text: `h${i}` })),
      tables: Array.from({ length: n / 2 }, (_, i) => ({ start: i * 16 + 2, end: i * 16 + 4 })),
      code: [],
      images: [],
      pages: Array.from({ length: n / 4 }, (_, i) => ({ start: i * 32, end: i * 32 + 32, number: i + 1 })),
    };
    const spans = Array.from({ length: n }, (_, i) => ({ start: i * 8, end: i * 8 + 8, tokenCount: 0 }));
    return () => structureMetadata(text, structure, spans);
  };
  const small = make(4_000);
  const large = make(40_000);
  small();
  const a = fastest(small);
  const b = fastest(large);
  // Quadratic would be ~100×: 40,000 chunks against 40,000 headings is 1.6 × 10^9 steps.
  assert.ok(b < 30 * Math.max(a, 2), `10× the input took ${(b / a).toFixed(1)}× the time (${a.toFixed(1)} → ${b.toFixed(1)} ms)`);
});
