import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Chunk } from '../../kernel/chunk.js';
import { discover } from '../../kernel/discovery.js';
import { boundaries, headingLevel, LINE, PARAGRAPH, SECTION, SENTENCE } from './impl.js';
import { chunkWith } from '../../test/helpers/run.js';

const registry = await discover();
const passage = registry.get('chunker', 'passage');
const chunk = async (text: string, config: Record<string, unknown> = {}, unit: 'codepoint' | 'utf16' | 'utf8' = 'codepoint') =>
  (await chunkWith(passage, passage.validateConfig({ ...config }), text, unit)) as Chunk[];
const texts = (chunks: Chunk[]) => chunks.map((c) => c.text);
const cp = (s: string) => [...s];

/** Every chunk is the exact slice of the input at its code-point offsets, and the chunks tile it. */
function assertTiles(input: string, chunks: Chunk[]): void {
  const chars = cp(input);
  let at = 0;
  for (const c of chunks) {
    assert.equal(c.start_index, at, 'chunks tile the input');
    assert.equal(chars.slice(c.start_index, c.end_index).join(''), c.text);
    at = c.end_index;
  }
  assert.equal(at, chars.length);
}

describe('headingLevel', () => {
  const cases: [string, number][] = [
    ['# Title', 1],
    ['### Deep', 3],
    ['   ## Indented three', 2],
    ['#hashtag', 0],
    ['= Title =', 1],
    [' = = Gameplay = = ', 2],
    ['== Release ==', 2],
    ['== Unbalanced =', 0],
    ['====', 0],
    ['= = =', 0],
    ['a = b =', 0],
    ['plain line', 0],
  ];
  for (const [line, level] of cases) test(JSON.stringify(line), () => assert.equal(headingLevel(line), level));
});

describe('boundaries', () => {
  test('strengths: section before a heading, paragraph, line, sentence; none right after a heading', () => {
    const text = 'Intro. More\nline two\n\npara two\n# Head\nbody';
    const cuts = boundaries(text);
    assert.equal(cuts.get(text.indexOf('More')), SENTENCE);
    assert.equal(cuts.get(text.indexOf('line two')), LINE);
    assert.equal(cuts.get(text.indexOf('para two')), PARAGRAPH);
    assert.equal(cuts.get(text.indexOf('# Head')), SECTION);
    assert.equal(cuts.has(text.indexOf('body')), false);
  });
  test('CRLF blank lines are a paragraph break, CJK full stops end sentences', () => {
    const text = 'one\r\n\r\ntwo。三つ';
    const cuts = boundaries(text);
    assert.equal(cuts.get(text.indexOf('two')), PARAGRAPH);
    assert.equal(cuts.get(text.indexOf('三')), SENTENCE);
  });
});

describe('chunks', () => {
  test('paragraphs that fit are cut at the blank line, not inside', async () => {
    const p1 = 'The first paragraph has a sentence. It has another one.';
    const p2 = 'The second paragraph is here. It also has two sentences.';
    const out = await chunk(`${p1}\n\n${p2}`, { chunk_size: 14, target: 0.75, tokenizer: 'word' });
    assert.deepEqual(texts(out), [`${p1}\n\n`, p2]);
  });

  test('balanced: ten equal sentences in two chunks of five, not 8 + 2 as greedy packing would give', async () => {
    const text = Array.from({ length: 10 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const out = await chunk(text, { chunk_size: 40, target: 1, tokenizer: 'word' });
    assert.deepEqual(
      out.map((c) => c.token_count),
      [25, 25],
    );
    assertTiles(text, out);
  });

  test('a heading starts a chunk and stays with the text under it', async () => {
    const text = 'Some words before the heading here.\n## Results\nThe results are good and long enough.';
    const out = await chunk(text, { chunk_size: 12, target: 0.5, tokenizer: 'word', context: 'none' });
    assert.deepEqual(texts(out), ['Some words before the heading here.\n', '## Results\nThe results are good and long enough.']);
  });

  test('chunk_size is a hard maximum: an overlong sentence is cut between words', async () => {
    const text = 'one two three four five six seven eight nine ten eleven twelve.';
    const out = await chunk(text, { chunk_size: 5, tokenizer: 'word' });
    assert.ok(out.length >= 3);
    for (const c of out) assert.ok(c.token_count <= 5, JSON.stringify(c));
    assert.ok(
      out.every((c) => /(^|\s)$/.test(c.text) || c === out.at(-1)),
      'cuts fall after whitespace',
    );
    assertTiles(text, out);
  });

  test('a word longer than chunk_size is cut by tokens', async () => {
    const text = 'x'.repeat(25);
    const out = await chunk(text, { chunk_size: 10, tokenizer: 'character' });
    assert.deepEqual(
      out.map((c) => c.token_count),
      [8, 8, 9],
      'three balanced pieces, not 10 + 10 + 5',
    );
    assertTiles(text, out);
  });
});

describe('title context', () => {
  test('Markdown: chunks under a top-level heading get its line; the chunk holding it does not', async () => {
    const text = '# Valkyria\nIntro sentence one is here. Intro two.\n\n## Plot\nThe plot is told here in full.\n\n# Other\nOther text is here.';
    const out = await chunk(text, { chunk_size: 10, tokenizer: 'word' });
    assert.deepEqual(
      out.map((c) => [c.text, c.context]),
      [
        ['# Valkyria\nIntro sentence one is here. Intro two.\n\n', undefined],
        ['## Plot\nThe plot is told here in full.\n\n', '# Valkyria'],
        ['# Other\nOther text is here.', undefined],
      ],
    );
    const more = await chunk(`${text} Still more words. And more words again here.`, { chunk_size: 8, tokenizer: 'word' });
    assert.equal(more.at(-1)!.context, '# Other');
  });
  test('MediaWiki headings, as WikiText spaces them', async () => {
    const text = ' = Valkyria Chronicles III = \n The game is a tactical role playing game. \n = = Gameplay = = \n Players fight in turns on a map. \n';
    const out = await chunk(text, { chunk_size: 12, tokenizer: 'word' });
    const last = out.at(-1)!;
    assert.ok(last.text.includes('Players'));
    assert.equal(last.context, ' = Valkyria Chronicles III =');
  });
  test("context 'none' sets no context", async () => {
    const out = await chunk('# A\nSome text here.\n\nMore text here now.', { chunk_size: 4, tokenizer: 'word', context: 'none' });
    assert.ok(out.length > 1);
    assert.ok(out.every((c) => c.context === undefined));
  });
});

describe('exact offsets', () => {
  test('CJK, emoji, CRLF and repeated text, in every offset unit', async () => {
    const text = '日本語の文章です。二つ目の文。\r\n\r\n🦛 hippo 🦛. 🦛 hippo 🦛.\r\nabab abab. abab abab.';
    for (const unit of ['codepoint', 'utf16', 'utf8'] as const) {
      const out = await chunk(text, { chunk_size: 6, tokenizer: 'cl100k_base' }, unit);
      assert.ok(out.length > 2);
      const enc = unit === 'utf8' ? Buffer.from(text) : null;
      for (const c of out) {
        const slice =
          unit === 'codepoint'
            ? cp(text).slice(c.start_index, c.end_index).join('')
            : unit === 'utf16'
              ? text.slice(c.start_index, c.end_index)
              : enc!.subarray(c.start_index, c.end_index).toString();
        assert.equal(slice, c.text);
      }
    }
  });

  test('property: chunks tile any text exactly and never exceed chunk_size (but for one character wider than it)', async () => {
    const piece = fc.constantFrom('a', 'word ', 'Sentence. ', '\n', '\r\n', '\n\n', '# H\n', '= T =\n', '日本', '。', '🦛', 'é', '  ', '!');
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom('character', 'word', 'byte', 'cl100k_base'),
        async (parts, size, tokenizer) => {
          const text = parts.join('');
          if (text.trim() === '') return;
          const out = await chunk(text, { chunk_size: size, tokenizer });
          assertTiles(text, out);
          for (const c of out) assert.ok(c.token_count <= size || cp(c.text).length === 1, JSON.stringify({ c, size, tokenizer }));
        },
      ),
      { numRuns: 150 },
    );
  });

  test('property: the same with chunk sizes where cuts are thinned (one per chunk_size/128 tokens)', async () => {
    const piece = fc.constantFrom('word ', 'Sentence here. ', '\n', '\r\n\r\n', 'xxxxxxxxxxxxxxxx', '🦛', '日本語。', '# H\n');
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { minLength: 50, maxLength: 400 }),
        fc.integer({ min: 256, max: 700 }),
        fc.constantFrom('character', 'byte', 'word'),
        async (parts, size, tokenizer) => {
          const text = parts.join('');
          if (text.trim() === '') return;
          const out = await chunk(text, { chunk_size: size, tokenizer });
          assertTiles(text, out);
          for (const c of out) assert.ok(c.token_count <= size, JSON.stringify({ tokens: c.token_count, size, tokenizer }));
        },
      ),
      { numRuns: 60 },
    );
  });

  test('work stays bounded on a text of tiny lines or without any boundary', async () => {
    // Cuts are thinned to about 128 per chunk: chunks near the target of 1,000 characters, none over 2,000.
    const lines = await chunk('a\n'.repeat(20_000), { chunk_size: 2000, tokenizer: 'character' });
    assertTiles('a\n'.repeat(20_000), lines);
    for (const c of lines) assert.ok(c.token_count <= 2000 && c.token_count >= 500, JSON.stringify(c.token_count));
    const solid = await chunk('x'.repeat(10_000), { chunk_size: 512, tokenizer: 'character' });
    assert.deepEqual(new Set(solid.map((c) => c.token_count <= 512)), new Set([true]));
    assertTiles('x'.repeat(10_000), solid);
  });
});

describe("repeats 'drop'", () => {
  /** The chunks of `keep` that `drop` returns: the first of each (context, text), in order, at the same offsets. */
  const firstOfEach = (keep: Chunk[]) => keep.filter((c, i) => keep.findIndex((d) => d.text === c.text && d.context === c.context) === i);

  test('a passage the text repeats word for word comes once, at its first copy', async () => {
    const para = 'The same paragraph, repeated word for word.';
    const text = `${para}\n\nSomething else in between here.\n\n${para}\n\nAn ending that differs.`;
    const keep = await chunk(text, { chunk_size: 8, tokenizer: 'word' });
    const drop = await chunk(text, { chunk_size: 8, tokenizer: 'word', repeats: 'drop' });
    assert.equal(keep.filter((c) => c.text === `${para}\n\n`).length, 2);
    assert.deepEqual(drop, firstOfEach(keep));
    assert.deepEqual(texts(drop), [`${para}\n\n`, 'Something else in between here.\n\n', 'An ending that differs.']);
    assert.equal(drop[0]!.start_index, 0);
  });

  test('copies under different top-level headings differ by their context: both stay', async () => {
    const text = '# One\nIntro of one here.\n\nShared text in both.\n\n# Two\nIntro of two here.\n\nShared text in both.\n\n';
    const drop = await chunk(text, { chunk_size: 5, tokenizer: 'word', repeats: 'drop' });
    const shared = drop.filter((c) => c.text.startsWith('Shared text'));
    assert.deepEqual(
      shared.map((c) => c.context),
      ['# One', '# Two'],
    );
    const none = await chunk(text, { chunk_size: 5, tokenizer: 'word', repeats: 'drop', context: 'none' });
    assert.equal(none.filter((c) => c.text.startsWith('Shared text')).length, 1, 'without context the second copy is left out');
  });

  test('offsets stay exact on CJK, emoji, CRLF and repeated text, in every offset unit', async () => {
    const block = '日本語の文章です。\r\n\r\n🦛 hippo 🦛.\r\n\r\n';
    const text = `${block}abab abab.\r\n\r\n${block}${block}é fin.`;
    for (const unit of ['codepoint', 'utf16', 'utf8'] as const) {
      const keep = await chunk(text, { chunk_size: 8, tokenizer: 'cl100k_base' }, unit);
      const drop = await chunk(text, { chunk_size: 8, tokenizer: 'cl100k_base', repeats: 'drop' }, unit);
      assert.ok(drop.length < keep.length, 'the copies are left out');
      assert.deepEqual(drop, firstOfEach(keep));
      assert.equal(new Set(drop.map((c) => c.text)).size, drop.length);
      const enc = unit === 'utf8' ? Buffer.from(text) : null;
      for (const c of drop) {
        const slice =
          unit === 'codepoint'
            ? cp(text).slice(c.start_index, c.end_index).join('')
            : unit === 'utf16'
              ? text.slice(c.start_index, c.end_index)
              : enc!.subarray(c.start_index, c.end_index).toString();
        assert.equal(slice, c.text);
      }
    }
  });

  test("property: 'drop' returns exactly the first copy of each chunk 'keep' returns", async () => {
    const piece = fc.constantFrom('Same words here. ', '\n\n', '🦛 ', '# H\n', '日本。', 'other ', '\r\n');
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { minLength: 1, maxLength: 50 }), fc.integer({ min: 1, max: 10 }), async (parts, size) => {
        const text = parts.join('');
        if (text.trim() === '') return;
        const keep = await chunk(text, { chunk_size: size, tokenizer: 'word' });
        const drop = await chunk(text, { chunk_size: size, tokenizer: 'word', repeats: 'drop' });
        assert.deepEqual(drop, firstOfEach(keep));
      }),
      { numRuns: 100 },
    );
  });
});

describe("context 'window'", () => {
  test('the context is the chunk with `window` characters on each side, exact on CJK, emoji and CRLF, in every offset unit', async () => {
    const text = '日本語の文章です。二つ目の文。\r\n\r\n🦛 hippo 🦛. 🦛 hippo 🦛.\r\nabab abab. abab abab.';
    const chars = cp(text);
    for (const unit of ['codepoint', 'utf16', 'utf8'] as const) {
      const out = await chunk(text, { chunk_size: 8, tokenizer: 'character', context: 'window', window: 3 }, unit);
      assert.ok(out.length > 3);
      const enc = unit === 'utf8' ? Buffer.from(text) : null;
      let at = 0;
      for (const c of out) {
        const slice =
          unit === 'codepoint'
            ? chars.slice(c.start_index, c.end_index).join('')
            : unit === 'utf16'
              ? text.slice(c.start_index, c.end_index)
              : enc!.subarray(c.start_index, c.end_index).toString();
        assert.equal(slice, c.text);
        // In code points: the chunk's own range, widened by 3 on each side within the text.
        const start = cp(text.slice(0, text.indexOf(c.text, at))).length;
        const end = start + cp(c.text).length;
        assert.equal(c.context, chars.slice(Math.max(0, start - 3), Math.min(chars.length, end + 3)).join(''));
        at += c.text.length;
      }
    }
  });

  test('under a top-level heading the context is the heading line, then the window', async () => {
    const text = '# Valkyria\nIntro sentence one is here. Intro two.\n\nThe plot is told here in full, over many words.\n\nA closing paragraph ends it.';
    const out = await chunk(text, { chunk_size: 8, tokenizer: 'word', context: 'window', window: 2 });
    assert.ok(out.length >= 3);
    const [first, ...rest] = out;
    assert.ok(!first!.context!.startsWith('# Valkyria\n# Valkyria'), 'a window that holds the heading does not repeat it');
    assert.ok(first!.context!.startsWith(first!.text));
    for (const c of rest) {
      assert.ok(c.context!.startsWith('# Valkyria\n'), JSON.stringify(c.context));
      const window = c.context!.slice('# Valkyria\n'.length);
      assert.ok(text.includes(window) && window.includes(c.text), JSON.stringify({ window, text: c.text }));
    }
    const last = out.at(-1)!;
    assert.ok(last.context!.endsWith(last.text), 'the window ends with the text');
  });

  test('property: the window is a slice of the input around the chunk, never splitting a character', async () => {
    const piece = fc.constantFrom('word ', 'Sentence. ', '\n', '\r\n', '\n\n', '日本', '。', '🦛', 'é', 'abab ');
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom('character', 'word', 'byte', 'cl100k_base'),
        async (parts, size, window, tokenizer) => {
          const text = parts.join('');
          if (text.trim() === '') return;
          const out = await chunk(text, { chunk_size: size, tokenizer, context: 'window', window }, 'utf16');
          assertTilesUtf16(text, out);
          for (const c of out) {
            const context = c.context!;
            // Some place of the input holds the context with the chunk at its offsets (the text may repeat).
            let found = false;
            for (let at = text.indexOf(context); at >= 0 && at <= c.start_index; at = text.indexOf(context, at + 1)) {
              if (at + context.length >= c.end_index && context.slice(c.start_index - at, c.end_index - at) === c.text) found = true;
            }
            assert.ok(found, JSON.stringify({ context, c }));
            assert.ok(!/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(context), 'no half of a surrogate pair');
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

function assertTilesUtf16(input: string, chunks: Chunk[]): void {
  let at = 0;
  for (const c of chunks) {
    assert.equal(c.start_index, at);
    assert.equal(input.slice(c.start_index, c.end_index), c.text);
    at = c.end_index;
  }
  assert.equal(at, input.length);
}
