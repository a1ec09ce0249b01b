/**
 * Differential tests against Chonkie's own splitting core: @chonkiejs/chunk is its Rust core
 * compiled to WASM (a devDependency, loaded from disk). Its `split_offsets` takes single-byte
 * delimiters (the path Chonkie's chunkers take when every delimiter is one ASCII character) and
 * `find_merge_indices` is the grouping behind `merge_splits`. Multi-byte delimiter patterns are
 * not exposed by the WASM build: test/split.test.ts pins them in tables derived from the core's
 * source. Offsets from the core are UTF-8 bytes; they are mapped to UTF-16 indices to compare.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { find_merge_indices, initSync, split_offsets } from '@chonkiejs/chunk/pkg/chonkiejs_chunk.js';
import fc from 'fast-check';
import { groupEnds, loadTokenizer, sentenceSplitter, type Span } from '../kernel/index.js';
import { recursiveChunker } from '../kernel/split/recursive.js';
import type { Recipe } from '../kernel/split/recipes.js';

initSync({ module: readFileSync(new URL(import.meta.resolve('@chonkiejs/chunk/pkg/chonkiejs_chunk_bg.wasm'))) });

const encoder = new TextEncoder();

/** UTF-16 index of every UTF-8 byte offset that starts a character (and of the end). */
function byteToUnit(text: string): Map<number, number> {
  const map = new Map<number, number>([[0, 0]]);
  let bytes = 0;
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i)!;
    const units = cp > 0xffff ? 2 : 1;
    bytes += encoder.encode(text.slice(i, i + units)).length;
    i += units;
    map.set(bytes, i);
  }
  return map;
}

/** Chonkie's split of `text` as UTF-16 spans. */
function chonkieSplit(text: string, delims: string, includeDelim: 'prev' | 'next', min: number): [number, number][] {
  const flat = split_offsets(encoder.encode(text), delims, includeDelim, min);
  const units = byteToUnit(text);
  const out: [number, number][] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const start = units.get(flat[i]!);
    const end = units.get(flat[i + 1]!);
    assert.ok(start !== undefined && end !== undefined, 'single-byte ASCII delimiters cut between characters');
    out.push([start, end]);
  }
  return out;
}

// Texts of words, spaces and delimiters with 1- to 4-byte characters (é 2, 日 3, 🦛 4 bytes), so
// the byte-counted minimum and the UTF-16 offsets both matter.
const unit = fc.constantFrom('a', 'b', 'c', ' ', ' ', '.', '!', '?', '\n', ';', 'é', '日', '🦛');
const text = fc.string({ unit, maxLength: 150 });
const delims = fc.subarray(['.', '!', '?', '\n', ' ', ';', 'a'], { minLength: 1 });
const includeDelim = fc.constantFrom<'prev' | 'next'>('prev', 'next');
const min = fc.oneof(fc.integer({ min: 0, max: 30 }), fc.constantFrom(0, 1, 12, 24));

describe("the kernel splitter cuts and merges where Chonkie's core does (split_offsets)", () => {
  test('random texts, single-byte delimiter sets, include_delim and minimums (5,000 cases)', () => {
    fc.assert(
      fc.property(text, delims, includeDelim, min, (t, d, mode, m) => {
        const got = sentenceSplitter({ delim: d, includeDelim: mode, minCharacters: m })(t).map((s): [number, number] => [s.start, s.end]);
        assert.deepEqual(got, chonkieSplit(t, d.join(''), mode, m));
      }),
      { numRuns: 5000 },
    );
  });

  test('prose-like texts with the default sentence delimiters that are single bytes', () => {
    const word = fc.constantFrom('Query', 'paragraph', 'river', 'quick', 'water', 'é', 'naïve', '日本語', '🦛');
    const sep = fc.constantFrom(' ', ' ', ' ', '. ', '\n', '\n\n', '! ', '? ');
    const prose = fc.array(fc.tuple(word, sep), { maxLength: 40 }).map((parts) => parts.flat().join(''));
    fc.assert(
      fc.property(prose, includeDelim, min, (t, mode, m) => {
        const got = sentenceSplitter({ delim: ['\n', '.', '!', '?'], includeDelim: mode, minCharacters: m })(t).map((s): [number, number] => [s.start, s.end]);
        assert.deepEqual(got, chonkieSplit(t, '\n.!?', mode, m));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("greedy grouping equals Chonkie's find_merge_indices (merge_splits)", () => {
  test('random counts and sizes (3,000 cases), including zeros, exact fits and all-over-size lists', () => {
    const counts = fc.array(fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constantFrom(0, 10, 50)), { maxLength: 40 });
    fc.assert(
      fc.property(counts, fc.integer({ min: 1, max: 60 }), (c, size) => {
        assert.deepEqual(groupEnds(c, size), [...find_merge_indices(Uint32Array.from(c), size)]);
      }),
      { numRuns: 3000 },
    );
  });
});

/**
 * Chonkie's RecursiveChunker._recursive_chunk over the core, with the character tokenizer: split a
 * piece at the level (split_offsets with the minimum), count, leave the pieces as they are when
 * every one is over chunk_size and otherwise group them (find_merge_indices), recurse into groups
 * still over chunk_size, and cut by chunk_size tokens at the last level.
 */
function chonkieRecursive(text: string, levels: string[], size: number, min: number): [number, number][] {
  const cps = (s: string) => [...s].length;
  const out: [number, number][] = [];
  const walk = (start: number, end: number, level: number): void => {
    const piece = text.slice(start, end);
    if (level === levels.length) {
      const chars = [...piece];
      let at = start;
      for (let i = 0; i < chars.length; i += size) {
        const len = chars.slice(i, i + size).join('').length;
        out.push([at, at + len]);
        at += len;
      }
      return;
    }
    const splits = chonkieSplit(piece, levels[level]!, 'prev', min).map(([s, e]): [number, number] => [start + s, start + e]);
    const counts = splits.map(([s, e]) => cps(text.slice(s, e)));
    let groups: [number, number, number][];
    if (counts.every((c) => c > size)) groups = splits.map(([s, e], i) => [s, e, counts[i]!]);
    else {
      groups = [];
      let i = 0;
      for (const j of find_merge_indices(Uint32Array.from(counts), size)) {
        groups.push([splits[i]![0], splits[j - 1]![1], counts.slice(i, j).reduce((a, b) => a + b, 0)]);
        i = j;
      }
    }
    for (const [s, e, count] of groups) {
      if (count > size) walk(s, e, level + 1);
      else out.push([s, e]);
    }
  };
  if (text.length > 0) walk(0, text.length, 0);
  return out;
}

describe("the recursive chunker gives Chonkie's RecursiveChunker chunks (single-byte levels over the core)", () => {
  const levels = ['\n', '.!?', ' '];
  const recipe: Recipe = {
    name: 'test',
    lang: 'en',
    rules: [...levels.map((d) => ({ delimiters: [...d], includeDelim: 'prev' as const })), null],
  };
  test('random texts, sizes and minimums (2,000 cases)', async () => {
    const tokenizer = await loadTokenizer('character');
    const word = fc.constantFrom('Query', 'paragraph', 'river', 'quick', 'water', 'a', 'é', 'naïve', '日本語', '🦛', 'Supercalifragilistic');
    const sep = fc.constantFrom(' ', ' ', ' ', '. ', '.', '\n', '\n\n', '! ', '?');
    const prose = fc.array(fc.tuple(word, sep), { minLength: 1, maxLength: 30 }).map((parts) => parts.flat().join(''));
    fc.assert(
      fc.property(prose, fc.integer({ min: 1, max: 60 }), fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constantFrom(1, 12, 24)), (t, size, m) => {
        const got = (recursiveChunker(recipe, tokenizer, size, m).chunk(t) as Span[]).map((c): [number, number] => [c.start, c.end]);
        assert.deepEqual(got, chonkieRecursive(t, levels, size, m));
      }),
      { numRuns: 2000 },
    );
  });
});
