import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Chunk } from '../../kernel/chunk.js';
import { discover } from '../../kernel/discovery.js';
import { isChunkdError } from '../../kernel/errors.js';
import { writeOnnx } from '../../test/helpers/tiny-models.js';
import { cosine, EMBEDDED_MODEL, loadEmbedder, MODELS_DIR } from '../../kernel/embeddings/embedder.js';
import { refineWith } from '../../test/helpers/run.js';

const registry = await discover();
const embeddings = registry.get('refinery', 'embeddings');
const refine = async (chunks: Chunk[], config: Record<string, unknown> = {}) =>
  (await refineWith(embeddings, embeddings.validateConfig({ ...config }), chunks)) as Chunk[];
const chunkOf = (text: string, start = 0): Chunk => ({ id: `c${start}`, text, start_index: start, end_index: start + [...text].length, token_count: 1 });

describe('the embedded model', () => {
  test('is the default and loads once', async () => {
    assert.equal(embeddings.validateConfig({}).embedding_model, EMBEDDED_MODEL);
    const [a, b] = await Promise.all([loadEmbedder(EMBEDDED_MODEL), loadEmbedder(EMBEDDED_MODEL)]);
    assert.equal(a, b);
    assert.equal(a.dimension, 100);
  });

  const pairs: [string, string, string][] = [
    ['cat', 'kitten', 'stock'],
    ['car', 'truck', 'poetry'],
    ['The cat rested on the carpet.', 'The kitten slept on the rug.', 'Stock markets fell sharply on Tuesday.'],
    ['Interest rates and inflation worry investors.', 'The central bank raised rates again.', 'The striker scored twice in the final.'],
  ];
  for (const [x, near, far] of pairs) {
    test(`"${x}" is closer to "${near}" than to "${far}"`, async () => {
      const e = await loadEmbedder(EMBEDDED_MODEL);
      const [vx, vn, vf] = await e.embed([x, near, far]);
      assert.ok(cosine(vx!, vn!) > cosine(vx!, vf!) + 0.1, `${cosine(vx!, vn!)} vs ${cosine(vx!, vf!)}`);
    });
  }

  test('vectors are unit length; a text with no known word is the zero vector', async () => {
    const e = await loadEmbedder(EMBEDDED_MODEL);
    const [v, none] = await e.embed(['A plain sentence about rivers.', 'qzxv qqqzz']);
    assert.ok(Math.abs(Math.hypot(...v!) - 1) < 1e-5);
    assert.ok(none!.every((x) => x === 0));
  });

  test('its tokenizer counts lowercased words and punctuation', async () => {
    const e = await loadEmbedder(EMBEDDED_MODEL);
    assert.equal(e.tokenizer.count('Hello, World!'), 4);
  });
});

describe('the refinery', () => {
  test("a chunk the model knows no word of gets its words' hashed direction: unit length, the same for the same words, never zero", async () => {
    const [unknown, again, other, known] = (await refine([chunkOf('qzxv qqqzz'), chunkOf('QZXV qqqzz'), chunkOf('zzqx vvqq'), chunkOf('rivers')])).map(
      (c) => c.embedding!,
    );
    assert.ok(Math.abs(Math.hypot(...unknown!) - 1) < 1e-6, 'unit length');
    assert.deepEqual(again, unknown, 'the same words (case aside) give the same direction');
    assert.ok(cosine(unknown!, other!) < 0.5, 'other words another direction');
    const e = await loadEmbedder(EMBEDDED_MODEL);
    const [model] = await e.embed(['rivers']);
    assert.ok(cosine(known!, model!) > 0.9999, "a text with a known word keeps the model's vector");
  });

  test("embeds a chunk's index text: its context, then its text (what a store's full-text index reads and chunkd eval embeds)", async () => {
    const e = await loadEmbedder(EMBEDDED_MODEL);
    const chunk = { ...chunkOf('Prices rose sharply.'), context: '# Inflation in Japan' };
    const [out] = await refine([chunk]);
    const [withContext, alone] = await e.embed(['# Inflation in Japan\nPrices rose sharply.', 'Prices rose sharply.']);
    assert.ok(cosine(out!.embedding!, withContext!) > 0.9999, 'the context is embedded with the text');
    assert.ok(cosine(out!.embedding!, alone!) < 0.99, 'not the text alone');
    assert.equal(out!.text, 'Prices rose sharply.', 'the span is unchanged');
  });

  test('adds an embedding to every chunk, keeps everything else, mutates nothing', async () => {
    const input = [chunkOf('Rivers flow to the sea.'), chunkOf(' Mountains rise high.', 23)];
    const before = structuredClone(input);
    const out = await refine(input);
    assert.deepEqual(input, before);
    assert.equal(out.length, 2);
    out.forEach((c, i) => {
      const { embedding, ...rest } = c;
      assert.deepEqual(rest, input[i]);
      assert.equal(embedding!.length, 100);
    });
  });

  test('batches of many chunks give the same vectors as one by one, in order', async () => {
    // 150 different words of the model's vocabulary: every text has its own vector, so a shift or
    // reordering across the provider's batches would show.
    const vocab = Object.keys(
      (JSON.parse(readFileSync(join(MODELS_DIR, 'glove-sif-100d', 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> } }).model.vocab,
    );
    const words = vocab
      .slice(1000)
      .filter((w) => /^[a-z]+$/.test(w))
      .slice(0, 150);
    const texts = words.map((w) => `The ${w}.`);
    const all = await refine(texts.map((t, i) => chunkOf(t, i * 100)));
    assert.equal(new Set(all.map((c) => JSON.stringify(c.embedding))).size, texts.length, 'every text has its own vector');
    for (const [i, t] of texts.entries()) assert.deepEqual(all[i]!.embedding, (await refine([chunkOf(t, i * 100)]))[0]!.embedding, t);
  });
});

describe('refinery errors', () => {
  test('an ONNX model without onnxruntime-node is a 501 naming the install command', async () => {
    const dir = writeOnnx(['red'], [[0], [0], [1], [1], [2]]);
    process.env.CHUNKD_HIDE_PACKAGES = 'onnxruntime-node';
    try {
      await assert.rejects(
        refine([chunkOf('red')], { embedding_model: dir }),
        (e) => isChunkdError(e) && e.status === 501 && /npm install onnxruntime-node/.test(String(e.detail)),
      );
    } finally {
      delete process.env.CHUNKD_HIDE_PACKAGES;
    }
  });

  test('an unknown model name is a 400', async () => {
    await assert.rejects(refine([chunkOf('x')], { embedding_model: 'no such model' }), (e) => isChunkdError(e) && e.status === 400);
  });
});
