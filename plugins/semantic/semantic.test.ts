import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Chunk } from '../../kernel/chunk.js';
import { discover } from '../../kernel/discovery.js';
import { isChunkdError } from '../../kernel/errors.js';
import { EMBEDDED_MODEL, loadEmbedder, type Embedder } from '../../kernel/embeddings/embedder.js';
import { splitSentences } from '../../kernel/index.js';
import { semanticChunker } from './impl.js';
import { topicText, TOPICS } from './topics.js';
import { chunkWith } from '../../test/helpers/run.js';

const registry = await discover();
const semantic = registry.get('chunker', 'semantic');
const chunk = async (text: string, config: Record<string, unknown> = {}) =>
  (await chunkWith(semantic, semantic.validateConfig({ ...config }), text, 'codepoint')) as Chunk[];
const embedder = await loadEmbedder(EMBEDDED_MODEL);

/** Chunks cover the text exactly, in order, and each slices out of it in code points. */
function assertTiles(text: string, chunks: Chunk[]): void {
  const cps = [...text];
  let at = 0;
  for (const c of chunks) {
    assert.equal(c.start_index, at, `gap or overlap before ${JSON.stringify(c.text)}`);
    assert.equal(cps.slice(c.start_index, c.end_index).join(''), c.text);
    at = c.end_index;
  }
  assert.equal(at, cps.length);
}

/** Code-point offsets where a chunk ends (except the last). */
const cuts = (chunks: Chunk[]) => chunks.slice(0, -1).map((c) => c.end_index);
const cp = (text: string, utf16: number) => [...text.slice(0, utf16)].length;

describe('topic changes (the embedded model)', () => {
  // The threshold is a percentile of the similarity minima: the share of minima that are topic
  // changes decides where cuts are exactly the changes (the default 0.5 also cuts each change).
  const orders: [string[], number][] = [
    [['cooking', 'astronomy', 'football'], 0.35],
    [['football', 'cooking', 'astronomy'], 0.35],
    [['astronomy', 'football', 'cooking'], 0.35],
    [['cooking', 'football', 'astronomy', 'cooking', 'astronomy', 'football'], 0.5],
  ];
  /** Cuts that fall on a topic change: between the last sentence of one and the first of the next (the blank line may go either way). */
  const topicCuts = (text: string, starts: number[], boundaries: number[]) =>
    starts.slice(1).map((start) => boundaries.find((b) => b >= cp(text, text.slice(0, start).trimEnd().length) && b <= cp(text, start)));

  for (const [order, exact] of orders) {
    test(`${order.join(' → ')}: a cut at every topic change; at threshold ${exact} nowhere else`, async () => {
      const { text, starts } = topicText(order);
      for (const threshold of [exact, 0.5, 0.8]) {
        const chunks = await chunk(text, { threshold });
        assertTiles(text, chunks);
        const found = topicCuts(text, starts, cuts(chunks));
        const shown = JSON.stringify(chunks.map((c) => c.text));
        assert.ok(
          found.every((b) => b !== undefined),
          `threshold ${threshold}: a topic change was not cut: ${shown}`,
        );
        if (threshold === exact) assert.equal(chunks.length, order.length, `threshold ${threshold}: extra cuts: ${shown}`);
      }
    });
  }
});

describe('threshold direction: lower → fewer, larger chunks', () => {
  const THRESHOLDS = [0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95];
  const texts: [string, string, Record<string, unknown>][] = [
    ['three topics', topicText().text, {}],
    ['six paragraphs, window 1', topicText(['cooking', 'football', 'astronomy', 'cooking', 'astronomy', 'football']).text, { similarity_window: 1 }],
    [
      'six paragraphs, min 3 sentences, skip window 2',
      topicText(['cooking', 'football', 'astronomy', 'cooking', 'astronomy', 'football']).text,
      { min_sentences_per_chunk: 3, skip_window: 2 },
    ],
    ['one long topic', Object.values(TOPICS).flat().join(' '), { filter_tolerance: 0.5 }],
  ];
  for (const [name, text, config] of texts) {
    test(`${name}: chunk count never falls as the threshold rises`, async () => {
      const counts: number[] = [];
      for (const threshold of THRESHOLDS) counts.push((await chunk(text, { ...config, threshold })).length);
      for (let k = 1; k < counts.length; k++) assert.ok(counts[k]! >= counts[k - 1]!, `counts ${counts} for thresholds ${THRESHOLDS}`);
      assert.ok(counts.at(-1)! > counts[0]!, `the threshold changed nothing: ${counts}`);
    });
  }
});

describe('offsets are exact', () => {
  const { text } = topicText();
  const cases: [string, string][] = [
    ['CRLF paragraphs', topicText(undefined, '\r\n').text],
    ['CJK between topics', text.replace('\n\n', '\n\n日本語の文章です。これは二番目の文です！中文句子也在这里。\n\n')],
    ['emoji in sentences', text.replaceAll('. ', ' 🦛👨‍👩‍👧‍👦. ').replace('pasta', 'pasta 🍝🇮🇹')],
    ['repeated text', (TOPICS.cooking!.join(' ') + '\n').repeat(4)],
  ];
  for (const [name, input] of cases) {
    test(name, async () => {
      for (const config of [{}, { chunk_size: 12 }, { similarity_window: 1, skip_window: 1 }]) {
        const chunks = await chunk(input, config);
        assertTiles(input, chunks);
      }
    });
  }
});

describe('the hard cap: no chunk above chunk_size tokens of the model', () => {
  const long = 'word '.repeat(60) + 'end. ' + topicText().text + ' ' + 'x'.repeat(300) + '.';
  for (const size of [1, 3, 8, 40]) {
    test(`chunk_size ${size}`, async () => {
      const chunks = await chunk(long, { chunk_size: size });
      assertTiles(long, chunks);
      for (const c of chunks) {
        assert.ok(c.token_count <= size, `${c.token_count} > ${size}: ${JSON.stringify(c.text)}`);
        assert.equal(embedder.tokenizer.count(c.text), c.token_count, `recount of ${JSON.stringify(c.text)}`);
      }
    });
  }

  test('an oversize sentence is cut before it is embedded', async () => {
    const seen: string[] = [];
    await recording((texts) => seen.push(...texts)).chunk(long, { chunk_size: 8, similarity_window: 1 });
    assert.ok(seen.length > 0);
    for (const t of seen) assert.ok(embedder.tokenizer.count(t) <= 8, `embedded ${JSON.stringify(t)}`);
  });
});

describe('each sentence is embedded once', () => {
  test('one batch holding every sentence exactly once, whatever the windows', async () => {
    const { text } = topicText();
    for (const config of [{}, { similarity_window: 5, skip_window: 2 }]) {
      const batches: string[][] = [];
      await recording((texts) => batches.push(texts)).chunk(text, config);
      const sentences = splitSentences(text, { delim: ['\n', '. ', '! ', '? '], includeDelim: 'prev', minCharacters: 12 }).map((s) =>
        text.slice(s.start, s.end),
      );
      assert.equal(batches.length, 1);
      assert.deepEqual(batches[0], sentences);
    }
  });
});

describe('few sentences: one chunk, no embedding', () => {
  const cases: [string, string, number][] = [
    ['one sentence', 'Just one sentence here, nothing more.', 3],
    ['three sentences, window 3', 'The soup is hot today. The telescope sees far. The goal came late.', 3],
    ['two sentences, window 2', 'The soup is hot today. The telescope sees far.', 2],
  ];
  for (const [name, text, window] of cases) {
    test(name, async () => {
      const chunks = await chunk(text, { similarity_window: window });
      assert.deepEqual(
        chunks.map((c) => [c.text, c.start_index, c.end_index]),
        [[text, 0, [...text].length]],
      );
    });
  }
});

describe('skip_window', () => {
  test('a topic that resumes after an aside is merged back, aside included, chunks stay contiguous', async () => {
    const { text } = topicText(['cooking', 'astronomy', 'cooking', 'football']);
    const plain = await chunk(text, { threshold: 0.2 });
    const merged = await chunk(text, { threshold: 0.2, skip_window: 1 });
    assertTiles(text, plain);
    assertTiles(text, merged);
    assert.ok(merged.length < plain.length, `${merged.length} vs ${plain.length}`);
  });
});

describe('config errors', () => {
  const bad400: [string, Record<string, unknown>, RegExp][] = [
    ['an even filter_window', { filter_window: 4, filter_polyorder: 2 }, /filter_window must be an odd/],
    ['filter_polyorder not below filter_window', { filter_window: 3, filter_polyorder: 3 }, /smaller than filter_window/],
    ['an unknown embedding model', { embedding_model: 'no-such-model' }, /Unknown embedding model/],
  ];
  for (const [name, config, message] of bad400) {
    test(`${name} → 400`, async () => {
      await assert.rejects(chunk(topicText().text, config), (e) => isChunkdError(e) && e.status === 400 && message.test(String(e.message)));
    });
  }

  const bad422: [string, Record<string, unknown>, string][] = [
    ['threshold 0', { threshold: 0 }, 'threshold'],
    ['threshold 1', { threshold: 1 }, 'threshold'],
    ['filter_tolerance 1', { filter_tolerance: 1 }, 'filter_tolerance'],
    ['filter_tolerance 0', { filter_tolerance: 0 }, 'filter_tolerance'],
    ['similarity_window 0', { similarity_window: 0 }, 'similarity_window'],
    ['min_sentences_per_chunk 0', { min_sentences_per_chunk: 0 }, 'min_sentences_per_chunk'],
    ['a negative skip_window', { skip_window: -1 }, 'skip_window'],
    ['a huge filter_window', { filter_window: 1001 }, 'filter_window'],
    ['chunk_size 0', { chunk_size: 0 }, 'chunk_size'],
  ];
  for (const [name, config, field] of bad422) {
    test(`${name} → 422 naming ${field}`, () => {
      assert.throws(
        () => semantic.validateConfig({ ...config }),
        (e) => isChunkdError(e) && e.status === 422 && Array.isArray(e.detail) && e.detail.some((i) => i.loc.includes(field)),
      );
    });
  }
});

/** The chunker over the embedded model, telling `record` every batch it embeds. */
function recording(record: (texts: string[]) => void) {
  const spy: Embedder = { ...embedder, tokenizer: embedder.tokenizer, embed: (texts) => (record(texts), embedder.embed(texts)) };
  type Config = Parameters<typeof semanticChunker>[0];
  return { chunk: async (text: string, config: Record<string, unknown>) => semanticChunker(semantic.validateConfig({ ...config }) as Config, spy).chunk(text) };
}
