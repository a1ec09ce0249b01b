import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { hashedDirection, type Span } from '../../kernel/index.js';
import type { WorkerPool } from '../../kernel/engine/index.js';
import { startApp, type TestApp } from '../../test/helpers/app.js';
import { tempDir, WORDPIECE_SPECIALS, writeContextOnnx, writeModel2Vec } from '../../test/helpers/tiny-models.js';
import { loadEmbedder } from '../../kernel/embeddings/embedder.js';
import { create } from './impl.js';
import { poolSpans } from './pool.js';
import { rejectsWith, setEnv, withEnv } from '../../test/helpers/env.js';

const near = (a: readonly number[], b: readonly number[], eps = 1e-6) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]!) < eps);
const mean = (rows: number[][], dim: number) => Array.from({ length: dim }, (_, d) => (rows.length ? rows.reduce((s, r) => s + r[d]!, 0) / rows.length : 0));
const unit = (v: readonly number[]) => v.map((x) => x / Math.hypot(...v));
const config = (embedding_model: string, chunk_size: number) => ({ embedding_model, chunk_size, recipe: 'default', lang: 'en', min_characters_per_chunk: 1 });

async function chunk(model: string, size: number, text: string): Promise<Required<Pick<Span, 'start' | 'end' | 'embedding'>>[]> {
  return (await (await create(config(model, size))).chunk(text)) as Required<Span>[];
}

describe('late chunking with a static (Model2Vec) model', () => {
  const words = ['alpha', 'beta', 'gamma', 'delta'];
  const rows = [
    [1, 0, 0],
    [0, 2, 0],
    [0, 0, 3],
    [1, 1, 1],
  ];
  const weights = [2, 1, 0.5, 1];
  const row = (w: string) => rows[words.indexOf(w)]!.map((x) => x * weights[words.indexOf(w)]!);
  const text = 'Alpha beta gamma. Delta alpha zzz. Gamma gamma beta delta. Qqq www. Beta.';
  let dir: string;
  before(async () => (dir = await writeModel2Vec(words, rows, { weights })));

  test('each chunk gets the mean of its known words’ weighted rows, computed here from the chunk text alone', async () => {
    const chunks = await chunk(dir, 4, text);
    assert.ok(chunks.length >= 4, `cut into ${chunks.length} chunks`);
    for (const c of chunks) {
      const known = (text.slice(c.start, c.end).toLowerCase().match(/\w+/g) ?? []).filter((w) => words.includes(w));
      // A chunk of no known word: its words' hashed direction (never the zero vector), as the embeddings refinery gives it.
      const expected = known.length ? mean(known.map(row), 3) : hashedDirection(text.slice(c.start, c.end), 3);
      assert.ok(near(c.embedding, expected), `${JSON.stringify(text.slice(c.start, c.end))}: ${c.embedding} vs ${expected}`);
    }
    assert.ok(
      chunks.some((c) => text.slice(c.start, c.end).includes('Qqq')),
      'a chunk of unknown words only is tested',
    );
  });

  test('a static model’s late vector points where the embeddings refinery’s vector of the chunk text points', async () => {
    const embedder = await loadEmbedder(dir);
    for (const c of await chunk(dir, 4, text)) {
      const [alone] = await embedder.embed([text.slice(c.start, c.end)]);
      if (alone!.every((x) => x === 0)) continue; // no known word: the hashed direction, checked above
      assert.ok(near(unit(c.embedding), Array.from(alone!)), text.slice(c.start, c.end));
    }
  });

  test('the built-in model works offline and gives 100-dimensional vectors', async () => {
    const chunks = await chunk('chunkd/glove-sif-100d', 8, 'The river flooded the valley. Farmers moved their herds uphill. In spring the water receded.');
    assert.ok(chunks.length > 1);
    for (const c of chunks) assert.equal(c.embedding.length, 100);
    assert.notDeepEqual(chunks[0]!.embedding, chunks[1]!.embedding);
  });
});

describe('late chunking with an ONNX encoder (token vectors depend on their window)', () => {
  const pieces = ['.', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];
  const vocab = [...WORDPIECE_SPECIALS, ...pieces];
  // Row i: a distinct vector per token id, so every mean is distinguishable.
  const table = vocab.map((_, i) => [i, (i * 7) % 5, i % 3 === 0 ? 1 : -1, 1 / (i + 1)]);
  const [CLS, SEP] = [vocab.indexOf('[CLS]'), vocab.indexOf('[SEP]')];
  const WINDOW = 8;

  /**
   * The token vectors as the README says they are computed, written out independently: windows
   * of WINDOW - 2 text tokens between [CLS] and [SEP], neighbours sharing a quarter of WINDOW
   * (at most half the text span); a shared token takes its vector from the earlier window in the
   * first half of the shared part. Here the model adds the window's mean row to each token's row.
   */
  function expectedTokenVectors(ids: number[]): number[][] {
    const span = WINDOW - 2;
    const shared = Math.min(Math.floor(WINDOW / 4), Math.floor(span / 2));
    const out: number[][] = [];
    for (let start = 0; ; start += span - shared) {
      const end = Math.min(ids.length, start + span);
      const run = [CLS, ...ids.slice(start, end), SEP];
      const ctx = mean(
        run.map((id) => table[id]!),
        4,
      );
      for (let k = start === 0 ? 0 : start + Math.floor(shared / 2); k < end; k++) out[k] = table[ids[k]!]!.map((x, d) => x + ctx[d]!);
      if (end === ids.length) return out;
    }
  }

  function expectedChunks(text: string, chunks: { start: number; end: number }[]): number[][] {
    const words = text.toLowerCase().match(/\w+|\./g)!;
    const vectors = expectedTokenVectors(words.map((w) => vocab.indexOf(w)));
    // Word k of the text is token k; a chunk holds the words whose characters lie in it.
    const positions = [...text.toLowerCase().matchAll(/\w+|\./g)].map((m) => [m.index!, m.index! + m[0].length] as const);
    return chunks.map(({ start, end }) =>
      mean(
        positions.flatMap(([s, e], k) => (s < end && e > start ? [vectors[k]!] : [])),
        4,
      ),
    );
  }

  let dir: string;
  before(() => (dir = writeContextOnnx(pieces, table, WINDOW)));

  test('a text inside one window: every token sees the whole text', async () => {
    const text = 'One two. Three four.';
    const chunks = await chunk(dir, 3, text);
    assert.ok(chunks.length >= 2);
    const expected = expectedChunks(text, chunks);
    chunks.forEach((c, i) => assert.ok(near(c.embedding, expected[i]!, 1e-5), `${text.slice(c.start, c.end)}: ${c.embedding} vs ${expected[i]}`));
  });

  test('a text longer than the window: overlapping windows, each chunk the mean of its tokens’ windowed vectors', async () => {
    const text = 'One two three four. Five six seven eight. Two four six eight. One three five seven. Eight seven six five four three two one.';
    const chunks = await chunk(dir, 5, text);
    assert.ok(chunks.length >= 5, `cut into ${chunks.length} chunks`);
    const expected = expectedChunks(text, chunks);
    chunks.forEach((c, i) => assert.ok(near(c.embedding, expected[i]!, 1e-5), `${text.slice(c.start, c.end)}: ${c.embedding} vs ${expected[i]}`));
    // The windows matter: one run over the whole text (no window limit) would give other vectors.
    const words = text
      .toLowerCase()
      .match(/\w+|\./g)!
      .map((w) => vocab.indexOf(w));
    const ctx = mean(
      [CLS, ...words, SEP].map((id) => table[id]!),
      4,
    );
    const firstWords = text
      .slice(chunks[0]!.start, chunks[0]!.end)
      .toLowerCase()
      .match(/\w+|\./g)!;
    const unwindowed = mean(
      firstWords.map((w) => table[vocab.indexOf(w)]!.map((x, d) => x + ctx[d]!)),
      4,
    );
    assert.ok(!near(chunks[0]!.embedding, unwindowed, 1e-3), 'the first chunk would not differ from an unwindowed run');
  });
});

describe('pooling rule', () => {
  const vec = (...x: number[]) => Float32Array.from(x);
  test('a token straddling a cut counts for both chunks; its leading space does not reach back', () => {
    // Tokens: "ab" [0,2), " cd" [2,5) (own text from 3), "ef" [5,7).
    const tokens = { ends: Uint32Array.from([2, 5, 7]), vectors: [vec(1, 0), vec(0, 1), vec(2, 2)] };
    assert.deepEqual(
      poolSpans(
        'ab cdef',
        [
          { start: 0, end: 3 },
          { start: 3, end: 7 },
        ],
        tokens,
        2,
      ),
      [
        [1, 0],
        [1, 1.5],
      ],
    );
    assert.deepEqual(
      poolSpans(
        'ab cdef',
        [
          { start: 0, end: 4 },
          { start: 4, end: 7 },
        ],
        tokens,
        2,
      ),
      [
        [0.5, 0.5],
        [1, 1.5],
      ],
    );
  });
  test("tokens without a vector are left out; a chunk with none gets its words' hashed direction, never the zero vector", () => {
    const tokens = { ends: Uint32Array.from([2, 4]), vectors: [null, vec(3, 3)] };
    assert.deepEqual(
      poolSpans(
        'abcd',
        [
          { start: 0, end: 2 },
          { start: 2, end: 4 },
        ],
        tokens,
        2,
      ),
      [hashedDirection('ab', 2), [3, 3]],
    );
    assert.ok(Math.abs(Math.hypot(...hashedDirection('ab', 2)) - 1) < 1e-6);
  });
});

describe('pooling rule, against a brute-force reading of it', () => {
  test('for any tokens and any tiling of the text, each chunk is the mean over the tokens whose own text overlaps it (none: its hashed direction)', () => {
    const text = fc.stringMatching(/^[ ab]{1,40}$/);
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 8 }), (t, rawEnds, rawCuts) => {
        const ends = Uint32Array.from([...new Set(rawEnds.map((e) => e % (t.length + 1)))].sort((a, b) => a - b));
        const vectors = Array.from(ends, (_, k) => (k % 3 === 2 ? null : Float32Array.from([k + 1, (k * k) % 7])));
        const cuts = [...new Set([0, ...rawCuts.map((c) => c % t.length), t.length])].sort((a, b) => a - b);
        const spans = cuts.slice(1).map((end, i) => ({ start: cuts[i]!, end }));
        const got = poolSpans(t, spans, { ends, vectors }, 2);
        spans.forEach(({ start, end }, i) => {
          const members: number[][] = [];
          for (let k = 0; k < ends.length; k++) {
            let own = k ? ends[k - 1]! : 0;
            while (own < ends[k]! && t[own] === ' ') own++;
            const ownEnd = Math.max(ends[k]!, own + 1);
            if (own < end && ownEnd > start && vectors[k]) members.push(Array.from(vectors[k]!));
          }
          const expected = members.length ? mean(members, 2) : hashedDirection(t.slice(start, end), 2);
          assert.ok(near(got[i]!, expected), `${JSON.stringify(t)} ${start}-${end}: ${got[i]} vs ${expected}`);
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe('models late chunking cannot use', () => {
  test('an API model answers 400 saying which models work', async () => {
    for (const name of ['openai/text-embedding-3-small', 'text-embedding-3-large']) {
      await withEnv({ OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined }, () =>
        rejectsWith(create(config(name, 512)), 400, /one vector per text, not per token.*glove-sif-100d/),
      );
    }
  });
  test('Chonkie’s client default model, absent from the Hugging Face cache, answers 400 saying how to install it and where', async () => {
    const cache = tempDir('chunkd-hub-');
    await withEnv({ HF_HUB_CACHE: cache, HF_ENDPOINT: undefined }, () =>
      rejectsWith(
        create(config('nomic-ai/modernbert-embed-base', 512)),
        400,
        new RegExp(
          `is not installed on this server.*optimum-cli export onnx --task feature-extraction.*${cache.replaceAll('/', '\\/')}\\) as models--nomic-ai--modernbert-embed-base\\/snapshots`,
        ),
      ),
    );
  });
});

let restoreEnv: () => void;

describe('HTTP: the bodies Chonkie’s clients send to /v1/chunk/late', () => {
  let app: TestApp;
  let cache: string;
  before(async () => {
    // The client's default model name, served by the tiny ONNX encoder from a Hugging Face cache of the test's own.
    cache = tempDir('chunkd-hub-');
    const pieces = ['.', 'the', 'river', 'flooded', 'valley', 'farmers', 'moved', 'their', 'herds', 'uphill'];
    const table = [...WORDPIECE_SPECIALS, ...pieces].map((_, i) => [i, 1, -i / 2]);
    const { cpSync, mkdirSync, writeFileSync } = await import('node:fs');
    const repo = join(cache, 'models--nomic-ai--modernbert-embed-base');
    cpSync(writeContextOnnx(pieces, table, 16), join(repo, 'snapshots', 'abc'), { recursive: true });
    mkdirSync(join(repo, 'refs'));
    writeFileSync(join(repo, 'refs', 'main'), 'abc');
    restoreEnv = setEnv({ HF_HUB_CACHE: cache });
    app = await startApp();
  });
  after(async () => {
    restoreEnv();
    await app.close();
  });

  const text = 'The river flooded the valley. Farmers moved their herds uphill.';
  const clientBody = { text, embedding_model: 'nomic-ai/modernbert-embed-base', chunk_size: 512, min_characters_per_chunk: 24, recipe: 'default', lang: 'en' };

  test('the Python and TypeScript clients’ body: chunks with text, offsets, token_count and embedding', async () => {
    const res = await app.post('/v1/chunk/late', clientBody);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.length, 1);
    const [c] = res.body;
    assert.deepEqual(Object.keys(c), ['id', 'text', 'start_index', 'end_index', 'token_count', 'embedding']);
    assert.equal(c.text, text);
    assert.equal(c.token_count, 12);
    assert.equal(c.embedding.length, 3);
  });

  test('a list of texts gives one list per text, each chunk with its embedding', async () => {
    const res = await app.post('/v1/chunk/late', { ...clientBody, text: [text, 'Farmers moved.'], chunk_size: 4 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.length, 2);
    for (const list of res.body) for (const c of list) assert.equal(c.embedding.length, 3);
    assert.ok(res.body[0].length > 1);
  });

  test('a model not in the cache is a 400 whose detail is one string the clients can show', async () => {
    const res = await app.post('/v1/chunk/late', { ...clientBody, embedding_model: 'nomic-ai/some-other-model' });
    assert.equal(res.status, 400);
    assert.equal(typeof res.body.detail, 'string');
    assert.match(res.body.detail, /Hugging Face cache/);
  });
});

describe('late chunking off the event loop and in pipelines', () => {
  let pooled: TestApp;
  let inline: TestApp;
  before(async () => ([pooled, inline] = await Promise.all([startApp({ workers: '1' }), startApp({ workers: '0' })])));
  after(async () => Promise.all([pooled.close(), inline.close()]));

  test('a large text runs in the worker pool and answers what the inline path answers, vectors included', async () => {
    const text = 'The river flooded the valley. Farmers moved their herds uphill. 雨が降った。🦛\r\n'.repeat(1200);
    const body = { text, chunk_size: 64 };
    const pool = pooled.booted.deps.executor as WorkerPool;
    const before = pool.tasksRun;
    const [a, b] = await Promise.all([pooled.post('/v1/chunk/late', body), inline.post('/v1/chunk/late', body)]);
    assert.equal(a.status, 200);
    assert.ok(pool.tasksRun > before, 'the text ran in a worker');
    assert.ok(a.body.length > 10);
    assert.deepEqual(a.body, b.body);
  });

  test('a pipeline step: chunk with late, then the overlap refinery keeps the vectors', async () => {
    const created = await inline.post('/v1/pipelines', {
      name: 'late-then-overlap',
      steps: [
        { type: 'chunk', chunker: 'late', config: { chunk_size: 8 } },
        { type: 'refine', refinery: 'overlap', config: { context_size: 2 } },
      ],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const run = await inline.post(`/v1/pipelines/${created.body.id}/execute`, {
      text: 'The river flooded the valley. Farmers moved their herds uphill. In spring the water receded.',
    });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.ok(run.body.length > 1);
    for (const c of run.body) assert.equal(c.embedding.length, 100);
  });
});
