import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { chunk_offsets, chunk_offsets_pattern, default_delimiters, default_target_size, initSync } from '@chonkiejs/chunk/pkg/chonkiejs_chunk.js';
import type { Chunk } from '../../kernel/chunk.js';
import { discover } from '../../kernel/discovery.js';
import { cut, delimiterTable, type ScanOptions } from './scan.js';
import { chunkWith } from '../../test/helpers/run.js';

// @chonkiejs/chunk is Chonkie's Rust core compiled to WASM: the reference for the cut rule.
const require = createRequire(import.meta.url);
initSync({ module: readFileSync(require.resolve('@chonkiejs/chunk/pkg/chonkiejs_chunk_bg.wasm')) });

const registry = await discover();
const fast = registry.get('chunker', 'fast');
const chunk = async (text: string, config: Record<string, unknown> = {}, unit: 'codepoint' | 'utf16' | 'utf8' = 'codepoint') =>
  (await chunkWith(fast, fast.validateConfig({ ...config }), text, unit)) as Chunk[];
const rows = (chunks: Chunk[]) => chunks.map((c) => [c.text, c.start_index, c.end_index, c.token_count]);
const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

describe("cut rule (cases from Chonkie's own tests, and more)", () => {
  const cases: [string, string, Record<string, unknown>, [string, number, number, number][]][] = [
    [
      'cut after the last delimiter in the budget',
      'Hello. World. Test.',
      { chunk_size: 10, delimiters: '.' },
      [
        ['Hello.', 0, 6, 6],
        [' World.', 6, 13, 7],
        [' Test.', 13, 19, 6],
      ],
    ],
    [
      'newlines',
      'Line one\nLine two\nLine three',
      { chunk_size: 15, delimiters: '\n' },
      [
        ['Line one\n', 0, 9, 9],
        ['Line two\n', 9, 18, 9],
        ['Line three', 18, 28, 10],
      ],
    ],
    [
      'no delimiter: a hard cut at the budget',
      'abcdefghij',
      { chunk_size: 5, delimiters: '.' },
      [
        ['abcde', 0, 5, 5],
        ['fghij', 5, 10, 5],
      ],
    ],
    [
      'prefix: the delimiter opens the next chunk',
      'Hello World Test',
      { chunk_size: 8, delimiters: ' ', prefix: true },
      [
        ['Hello', 0, 5, 5],
        [' World', 5, 11, 6],
        [' Test', 11, 16, 5],
      ],
    ],
    [
      'a pattern, suffix',
      'Hello▁World▁Test',
      { chunk_size: 15, pattern: '▁' },
      [
        ['Hello▁', 0, 6, 8],
        ['World▁Test', 6, 16, 12],
      ],
    ],
    [
      'a pattern, prefix',
      'Hello▁World▁Test',
      { chunk_size: 15, pattern: '▁', prefix: true },
      [
        ['Hello', 0, 5, 5],
        ['▁World▁Test', 5, 16, 15],
      ],
    ],
    [
      'consecutive: cut at the start of a run',
      'Hello\n\n\nWorld',
      { chunk_size: 8, delimiters: '\n', prefix: true, consecutive: true },
      [
        ['Hello', 0, 5, 5],
        ['\n\n\nWorld', 5, 13, 8],
      ],
    ],
    [
      'forward fallback: extend to the next delimiter',
      'verylongword next',
      { chunk_size: 6, delimiters: ' ', prefix: true, forward_fallback: true },
      [
        ['verylongword', 0, 12, 12],
        [' next', 12, 17, 5],
      ],
    ],
    [
      'forward fallback with no delimiter ahead: the rest is one chunk',
      'abcdefghij',
      { chunk_size: 3, delimiters: '.', forward_fallback: true },
      [['abcdefghij', 0, 10, 10]],
    ],
    [
      'a delimiter only at the chunk start is not a cut (suffix mode)',
      '.abcdef',
      { chunk_size: 4, delimiters: '.' },
      [
        ['.abc', 0, 4, 4],
        ['def', 4, 7, 3],
      ],
    ],
    ['defaults: 4096 bytes, newline, period, question mark', 'Short. Text?', {}, [['Short. Text?', 0, 12, 12]]],
  ];
  for (const [name, text, config, expected] of cases) test(name, async () => assert.deepEqual(rows(await chunk(text, config)), expected));

  test("the defaults are Chonkie's", () => {
    const props = fast.manifest.config.properties as Record<string, { default: unknown }>;
    assert.equal(props.chunk_size!.default, default_target_size());
    assert.equal(props.delimiters!.default, Buffer.from(default_delimiters()).toString('latin1'));
  });
});

describe('characters are never cut (where @chonkiejs/chunk cuts inside them)', () => {
  test('a hard cut inside a character moves back to its start; token_count counts bytes', async () => {
    // 'é' is 2 bytes: a 3-byte budget ends inside the second 'é'; Chonkie would cut there.
    const chonkie = [...chunk_offsets(Buffer.from('aéé'), 3, '.', false, false, false)];
    assert.deepEqual(chonkie, [0, 3, 3, 5]);
    assert.deepEqual(rows(await chunk('aéé', { chunk_size: 3, delimiters: '.' })), [
      ['aé', 0, 2, 3],
      ['é', 2, 3, 2],
    ]);
  });

  test('a character wider than the whole budget is one chunk (the only way over the budget without forward_fallback)', async () => {
    assert.deepEqual(rows(await chunk('🦛a🦛', { chunk_size: 2 })), [
      ['🦛', 0, 1, 4],
      ['a', 1, 2, 1],
      ['🦛', 2, 3, 4],
    ]);
  });

  test("offsets in every unit: utf8 offsets are Chonkie's byte offsets where Chonkie's are valid", async () => {
    const text = '日本語。 Hello. 🦛🦛 done.';
    const chunks = await chunk(text, { chunk_size: 9, delimiters: '. ' }, 'utf8');
    const ends = [...chunk_offsets(Buffer.from(text), 9, '. ', false, false, false)].filter((_, i) => i % 2 === 1);
    const valid = ends.every((e) => e === utf8(text) || (Buffer.from(text)[e]! & 0xc0) !== 0x80);
    assert.ok(valid, 'this text is one Chonkie cuts cleanly');
    assert.deepEqual(
      chunks.map((c) => c.end_index),
      ends,
    );
    for (const unit of ['codepoint', 'utf16'] as const) {
      const cs = await chunk(text, { chunk_size: 9, delimiters: '. ' }, unit);
      assert.equal(cs.map((c) => c.text).join(''), text);
    }
  });

  test('lone surrogates count as the 3 bytes of U+FFFD they are sent as', async () => {
    const text = 'a\ud800b\udfffc';
    const chunks = await chunk(text, { chunk_size: 4 });
    assert.deepEqual(rows(chunks), [
      ['a\ud800', 0, 2, 4],
      ['b\udfff', 2, 4, 4],
      ['c', 4, 5, 1],
    ]);
  });
});

describe('differential: the same cuts as @chonkiejs/chunk', () => {
  const ascii = fc.constantFrom('a', 'b', 'word', ' ', '  ', '.', '..', '\n', '\n\n', '?', '!', ';', 'x y. ', 'end.\n');
  const wide = fc.constantFrom('é', '日本語', '🦛', '▁', '。', 'ü ', '👨‍👩‍👧');
  const delimiters = fc.string({ unit: fc.constantFrom('\n', '.', '?', ' ', '!', 'a', ';'), maxLength: 5 });
  const pattern = fc.constantFrom('', ' ', '. ', '\n\n', '▁', 'ab', '..', '🦛', '日本');
  const options = fc.record({
    size: fc.integer({ min: 1, max: 48 }),
    delimiters,
    pattern,
    prefix: fc.boolean(),
    consecutive: fc.boolean(),
    forwardFallback: fc.boolean(),
  });

  /** Chonkie's end offsets for `bytes`. */
  function reference(
    bytes: Buffer,
    o: { size: number; delimiters: string; pattern: string; prefix: boolean; consecutive: boolean; forwardFallback: boolean },
  ): number[] {
    const flat = o.pattern
      ? chunk_offsets_pattern(bytes, o.size, Buffer.from(o.pattern), o.prefix, o.consecutive, o.forwardFallback)
      : chunk_offsets(bytes, o.size, o.delimiters, o.prefix, o.consecutive, o.forwardFallback);
    return [...flat].filter((_, i) => i % 2 === 1);
  }
  /** Our end offsets, in bytes: the running sum of the spans' byte counts. */
  const ours = (text: string, o: { size: number; delimiters: string; pattern: string; prefix: boolean; consecutive: boolean; forwardFallback: boolean }) => {
    let at = 0;
    return cut(text, { ...o, table: delimiterTable(o.delimiters), pattern: o.pattern || undefined } satisfies ScanOptions).map((s) => (at += s.tokenCount));
  };

  test('ASCII texts: identical cuts for every option (3000 cases)', () => {
    fc.assert(
      fc.property(
        fc.array(ascii, { maxLength: 60 }).map((p) => p.join('')),
        options,
        (text, o) => {
          const bytes = Buffer.from(text);
          assert.deepEqual(ours(text, o), reference(bytes, o));
        },
      ),
      { numRuns: 3000 },
    );
  });

  test("multi-byte texts: identical cuts up to Chonkie's first cut inside a character, and none of ours is (3000 cases)", () => {
    let clean = 0;
    let diverged = 0;
    fc.assert(
      fc.property(
        fc.array(fc.oneof(ascii, wide), { maxLength: 60 }).map((p) => p.join('')),
        options,
        (text, o) => {
          const bytes = Buffer.from(text);
          const ref = reference(bytes, o);
          const got = ours(text, o);
          const insideChar = (e: number) => e < bytes.length && (bytes[e]! & 0xc0) === 0x80;
          for (const e of got) assert.ok(!insideChar(e), `our cut ${e} is inside a character`);
          const bad = ref.findIndex(insideChar);
          if (bad < 0) {
            clean++;
            assert.deepEqual(got, ref);
          } else {
            diverged++;
            assert.deepEqual(got.slice(0, bad), ref.slice(0, bad));
            // At Chonkie's bad cut, ours is the character start before it (or the character end when it is wider than the budget).
            const start = bad === 0 ? 0 : ref[bad - 1]!;
            assert.ok(got[bad]! < ref[bad]! ? got[bad]! > start : true);
            assert.ok(!insideChar(got[bad]!));
          }
        },
      ),
      { numRuns: 3000 },
    );
    assert.ok(clean > 500 && diverged > 100, `both kinds of text were exercised (clean ${clean}, diverged ${diverged})`);
  });

  test('through the kernel: exact slices in every unit, token_count = UTF-8 bytes, budget kept (1000 cases)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(ascii, wide), { minLength: 1, maxLength: 40 }).map((p) => p.join('')),
        options,
        async (text, o) => {
          fc.pre(text.trim() !== '');
          const config = {
            chunk_size: o.size,
            delimiters: o.delimiters,
            pattern: o.pattern,
            prefix: o.prefix,
            consecutive: o.consecutive,
            forward_fallback: o.forwardFallback,
          };
          const cps = [...text];
          const chunks = await chunk(text, config);
          assert.equal(chunks.map((c) => c.text).join(''), text);
          for (const c of chunks) {
            assert.equal(cps.slice(c.start_index, c.end_index).join(''), c.text);
            assert.equal(c.token_count, utf8(c.text));
            const oneChar = [...c.text].length === 1;
            if (!o.forwardFallback) assert.ok(c.token_count <= o.size || oneChar, `${JSON.stringify(c.text)} is over ${o.size} bytes`);
          }
          const inBytes = await chunk(text, config, 'utf8');
          for (const c of inBytes) assert.equal(Buffer.from(text).subarray(c.start_index, c.end_index).toString(), c.text);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('config', () => {
  test('non-ASCII delimiters are a 422 (a multi-byte delimiter is a pattern)', () => {
    assert.throws(
      () => fast.validateConfig({ delimiters: '。' }),
      (e: Error & { status?: number }) => e.status === 422,
    );
  });
  test('a pattern with a lone surrogate is a 400 (it is no character to cut at)', async () => {
    await assert.rejects(chunk('a🦛b', { pattern: '\ud83e' }), (e: Error & { status?: number }) => e.status === 400 && /lone surrogate/.test(e.message));
  });
  test('sizes and lengths are bounded', () => {
    for (const bad of [{ chunk_size: 0 }, { chunk_size: 2 ** 25 }, { delimiters: '.'.repeat(129) }, { pattern: 'x'.repeat(65) }]) {
      assert.throws(
        () => fast.validateConfig({ ...bad }),
        (e: Error & { status?: number }) => e.status === 422,
        JSON.stringify(bad).slice(0, 40),
      );
    }
  });
});
