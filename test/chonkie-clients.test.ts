/**
 * The HTTP calls Chonkie's cloud clients make (the Python package's chonkie.cloud classes and the
 * TypeScript cloud client), replayed with the bodies they send and checked for what they read:
 * the status, and each chunk's text, start_index, end_index, token_count (and embedding for late).
 * Bodies follow the clients' defaults as recorded from their source and a wire log; a client's
 * extra keys (return_type, legacy names) are part of them on purpose. Classes whose default model
 * cannot be downloaded here are checked for the 400 that says how to install it, then served
 * through --model-map by tiny models written at test time.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hubCacheDir } from '../kernel/model-files.js';
import { resolveSettings } from '../service/settings.js';
import { boot } from '../server/boot.js';
import { startApp, type Reply, type TestApp } from './helpers/app.js';
import { startAppWithFakeLlm } from './helpers/fake-llm.js';
import { CLASSIFIER_PIECES, MODELS_ROOT, writeModel2Vec, writeTokenClassifier } from './helpers/tiny-models.js';
import { silentLogger, type Logger } from '../service/logger.js';

const TEXT =
  'The meeting starts at nine. Bring the quarterly figures.\n\nAfter lunch we review the roadmap for next year. ' +
  'One word, two words, three words. The meeting ends at five.';
const CODE = 'def add(a, b):\n    return a + b\n\n\nclass Counter:\n    def __init__(self):\n        self.n = 0\n\n    def bump(self):\n        self.n += 1\n';

/** What each class sends (small chunk sizes where the class would return a single chunk of TEXT). */
const BODIES = {
  'py token': ['/v1/chunk/token', { text: TEXT, tokenizer: 'gpt2', chunk_size: 16, chunk_overlap: 0, return_type: 'chunks' }],
  'ts token': ['/v1/chunk/token', { text: TEXT, tokenizer: 'gpt2', chunk_size: 16, chunk_overlap: 4 }],
  'py sentence': [
    '/v1/chunk/sentence',
    {
      text: TEXT,
      tokenizer_or_token_counter: 'character',
      chunk_size: 64,
      chunk_overlap: 0,
      min_sentences_per_chunk: 1,
      min_characters_per_sentence: 12,
      approximate: false,
      delim: ['.', '!', '?', '\n'],
      include_delim: 'prev',
      return_type: 'chunks',
    },
  ],
  'ts sentence': ['/v1/chunk/sentence', { text: TEXT, tokenizer: 'character', chunk_size: 64, chunk_overlap: 0, min_sentences_per_chunk: 1 }],
  'py recursive': [
    '/v1/chunk/recursive',
    { text: TEXT, tokenizer_or_token_counter: 'character', chunk_size: 64, recipe: 'default', lang: 'en', min_characters_per_chunk: 24, return_type: 'chunks' },
  ],
  'ts recursive': [
    '/v1/chunk/recursive',
    { text: TEXT, tokenizer_or_token_counter: 'character', chunk_size: 64, recipe: 'default', lang: 'en', min_characters_per_chunk: 24 },
  ],
  'py code': [
    '/v1/chunk/code',
    { text: CODE, tokenizer_or_token_counter: 'character', chunk_size: 48, language: 'python', lang: 'python', include_nodes: false, return_type: 'chunks' },
  ],
  'ts code': ['/v1/chunk/code', { text: CODE, tokenizer: 'character', chunk_size: 48, language: 'auto', include_nodes: false }],
} as const;

/** TS sends its own legacy set (min_sentences, min_chunk_size, threshold_step); Py the open-source server's fields. */
const semanticBody = (embedding_model: string, ts: boolean) =>
  ts
    ? {
        text: TEXT,
        embedding_model,
        threshold: 0.5,
        chunk_size: 512,
        similarity_window: 1,
        min_sentences: 1,
        min_chunk_size: 2,
        min_characters_per_sentence: 12,
        threshold_step: 0.01,
        delim: ['.', '!', '?', '\n'],
        include_delim: 'prev',
        return_type: 'chunks',
      }
    : {
        text: TEXT,
        embedding_model,
        threshold: 0.8,
        chunk_size: 512,
        similarity_window: 3,
        min_sentences_per_chunk: 1,
        min_characters_per_sentence: 24,
        delim: ['. ', '! ', '? ', '\n'],
        include_delim: 'prev',
        skip_window: 0,
        filter_window: 5,
        filter_polyorder: 3,
        filter_tolerance: 0.2,
      };
/** Older Python SemanticChunker (chonkie.cloud before the server's field names): threshold "auto" and the legacy fields. */
const PY_OLD_SEMANTIC_BODY = (text: string) => ({
  text,
  embedding_model: 'minishlab/potion-base-32M',
  chunk_size: 512,
  threshold: 'auto',
  similarity_window: 1,
  min_sentences: 1,
  min_chunk_size: 2,
  min_characters_per_sentence: 12,
  threshold_step: 0.01,
  delim: ['. ', '! ', '? ', '\n'],
  include_delim: 'prev',
});
const LATE_BODY = {
  text: TEXT,
  embedding_model: 'nomic-ai/modernbert-embed-base',
  chunk_size: 512,
  min_characters_per_chunk: 24,
  recipe: 'default',
  lang: 'en',
};
/** The TS LateChunker's defaults (its model: all-MiniLM-L6-v2). */
const TS_LATE_BODY = { text: TEXT, embedding_model: 'all-MiniLM-L6-v2', chunk_size: 512, recipe: 'default', lang: 'en', min_characters_per_chunk: 24 };
const NEURAL_BODY = { text: TEXT, model: 'mirth/chonky_modernbert_large_1', min_characters_per_chunk: 10 };
/** The TS NeuralChunker sends its model as embedding_model. */
const TS_NEURAL_BODY = { text: TEXT, embedding_model: 'mirth/chonky_modernbert_large_1', min_characters_per_chunk: 10, return_type: 'chunks' };
/** Three topics in blocks of sentences, so the semantic chunker (its filter window is 5 sentences) finds valleys. */
const TOPICS = {
  a: ['The meeting starts at nine.', 'Bring the quarterly figures.', 'The meeting starts with figures.', 'Bring figures at nine.'],
  b: ['After lunch we review the roadmap.', 'The roadmap for next year.', 'We review the year after lunch.', 'Lunch and the roadmap review.'],
  c: ['One word, two words.', 'Three words and five words.', 'The word ends at five.', 'Five words end it.'],
};
const LONG = [...TOPICS.a, ...TOPICS.b, ...TOPICS.c, ...TOPICS.a, ...TOPICS.b].join(' ');
const SLUMBER_BODY = {
  text: TEXT,
  tokenizer_or_token_counter: 'gpt2',
  chunk_size: 1024,
  recipe: 'default',
  lang: 'en',
  candidate_size: 128,
  min_characters_per_chunk: 24,
};
const OVERLAP = (chunks: unknown[]) => ({
  chunks,
  tokenizer_or_token_counter: 'character',
  context_size: 0.25,
  mode: 'token',
  method: 'suffix',
  recipe: 'default',
  lang: 'en',
  merge: true,
});
const EMBEDDINGS = (chunks: unknown[]) => ({ chunks, embedding_model: 'minishlab/potion-retrieval-32M' });

/** What both clients read from a chunk list: the fields' types, and offsets (code points) on the text sent. */
function assertReadable(res: Reply, input: string, opts: { embedding?: boolean; merged?: boolean } = {}) {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.ok(Array.isArray(res.body) && res.body.length > 0, 'a non-empty list of chunks');
  const points = [...input];
  for (const c of res.body) {
    assert.equal(typeof c.text, 'string');
    assert.ok(Number.isInteger(c.start_index) && Number.isInteger(c.end_index) && Number.isInteger(c.token_count));
    const span = points.slice(c.start_index, c.end_index).join('');
    // overlap with merge: the span stays an exact prefix (suffix method) and the added part is in context.
    if (opts.merged) assert.equal(c.text, span + (c.context ?? ''));
    else assert.equal(c.text, span);
    if (opts.embedding)
      assert.ok(Array.isArray(c.embedding) && c.embedding.length > 0 && c.embedding.every((x: unknown) => typeof x === 'number'), 'an embedding');
  }
}

/** The TS client shows `message`; it must be a readable string on every error. */
function assertError(res: Reply, status: number, code: string, message: string | RegExp) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.code, code);
  assert.equal(typeof res.body.message, 'string');
  if (typeof message === 'string') assert.equal(res.body.message, message);
  else assert.match(res.body.message, message);
}

const potionGuide = (name: string, what: string) =>
  `${what} '${name}' (a Model2Vec static embedding model) is not installed on this server, which cannot download models. To install it: on a machine with internet access run ` +
  `\`pip install -U huggingface_hub && hf download ${name} config.json tokenizer.json model.safetensors --local-dir ${name}\`, ` +
  `then copy the folder ${name}/ (config.json, tokenizer.json and model.safetensors) into a directory the server reads models from (--models-dir, CHUNKD_MODELS_DIR), keeping the path ${name}/, ` +
  `or into the Hugging Face cache (${hubCacheDir()}) as models--${name.replace('/', '--')}/snapshots/main/; no restart is needed. ` +
  `Or the operator maps the name to a model the server has: --model-map ${name}=<installed model> (CHUNKD_MODEL_MAP), e.g. chunkd/glove-sif-100d (built in).`;

describe('Chonkie clients against an open server with no models installed', () => {
  let app: TestApp;
  before(async () => (app = await startApp()));
  after(() => app.close());

  test("Py's probe GET / answers 200", async () => {
    assert.equal((await app.request('GET', '/')).status, 200);
  });

  test('TS validateAuth: 200 with body status 200, with or without a key', async () => {
    for (const headers of [{}, { authorization: 'Bearer anything' }] as Record<string, string>[]) {
      const res = await app.request('GET', '/v1/auth/validate', undefined, headers);
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 200);
      assert.equal(res.body.message, 'This server needs no API key: every key is accepted.');
    }
  });

  for (const [cls, [path, body]] of Object.entries(BODIES)) {
    test(`${cls}: ${path} answers chunks the client reads`, async () => {
      assertReadable(await app.post(path, body), body.text);
    });
  }

  test('overlap refine (both clients) on the chunks a recursive call returned', async () => {
    const chunks = (await app.post(...BODIES['py recursive'])).body;
    const res = await app.post('/v1/refine/overlap', OVERLAP(chunks));
    assertReadable(res, TEXT, { merged: true });
    assert.ok(res.body.some((c: { context?: string }) => typeof c.context === 'string' && c.context.length > 0));
  });

  test('embeddings refine with the default potion-retrieval-32M: a 400 that says how to install it', async () => {
    const chunks = (await app.post(...BODIES['py recursive'])).body;
    const res = await app.post('/v1/refine/embeddings', EMBEDDINGS(chunks));
    assertError(res, 400, 'BAD_REQUEST', potionGuide('minishlab/potion-retrieval-32M', 'Embedding model'));
    assert.equal(res.body.detail, res.body.message);
  });

  test('semantic with potion-base-8M (TS) and potion-base-32M (Py): the same guidance per model', async () => {
    assertError(
      await app.post('/v1/chunk/semantic', semanticBody('minishlab/potion-base-8M', true)),
      400,
      'BAD_REQUEST',
      potionGuide('minishlab/potion-base-8M', 'Embedding model'),
    );
    assertError(
      await app.post('/v1/chunk/semantic', semanticBody('minishlab/potion-base-32M', false)),
      400,
      'BAD_REQUEST',
      potionGuide('minishlab/potion-base-32M', 'Embedding model'),
    );
  });

  test('late with nomic-ai/modernbert-embed-base: the ONNX export command and where its files go', async () => {
    const name = 'nomic-ai/modernbert-embed-base';
    assertError(
      await app.post('/v1/chunk/late', LATE_BODY),
      400,
      'BAD_REQUEST',
      `Embedding model '${name}' (a transformer embedding model, run as ONNX) is not installed on this server, which cannot download models. To install it: on a machine with internet access run ` +
        `\`pip install -U "optimum[exporters]" && optimum-cli export onnx --task feature-extraction --model ${name} ${name}\`, ` +
        `then copy the folder ${name}/ (model.onnx, tokenizer.json and config.json) into a directory the server reads models from (--models-dir, CHUNKD_MODELS_DIR), keeping the path ${name}/, ` +
        `or into the Hugging Face cache (${hubCacheDir()}) as models--nomic-ai--modernbert-embed-base/snapshots/main/; no restart is needed. ` +
        `Or the operator maps the name to a model the server has: --model-map ${name}=<installed model> (CHUNKD_MODEL_MAP), e.g. an installed model directory.`,
    );
  });

  test('neural with each Chonky model the clients name: the token-classification export command', async () => {
    for (const name of ['mirth/chonky_modernbert_large_1', 'mirth/chonky_modernbert_base_1']) {
      const res = await app.post('/v1/chunk/neural', { ...NEURAL_BODY, model: name });
      assertError(
        res,
        400,
        'BAD_REQUEST',
        new RegExp(`^Token-classification model '${name}' \\(a Chonky token-classification model, run as ONNX\\) is not installed`),
      );
      assert.ok(res.body.message.includes(`optimum-cli export onnx --task token-classification --model ${name} ${name}\``));
      assert.ok(res.body.message.includes(`--model-map ${name}=<installed model>`));
    }
  });

  test('TS neural sends its model as embedding_model: honoured (the guidance for that model), never the default model', async () => {
    const res = await app.post('/v1/chunk/neural', TS_NEURAL_BODY);
    assertError(
      res,
      400,
      'BAD_REQUEST',
      /^Token-classification model 'mirth\/chonky_modernbert_large_1' \(a Chonky token-classification model, run as ONNX\) is not installed/,
    );
    assert.equal(res.headers.get('x-chunkd-ignored-keys'), null, 'embedding_model is not an ignored key');
  });

  test('neural with a model nobody has (as model or as embedding_model): a 400 that says how to install one, not chunks of the default', async () => {
    for (const body of [
      { text: TEXT, model: 'no-such-org/no-such-model' },
      { ...TS_NEURAL_BODY, embedding_model: 'no-such-org/no-such-model' },
    ]) {
      const res = await app.post('/v1/chunk/neural', body);
      assertError(res, 400, 'BAD_REQUEST', /^Token-classification model 'no-such-org\/no-such-model' is not in the local Hugging Face cache/);
      assert.ok(res.body.message.includes('optimum-cli export onnx --task token-classification --model no-such-org/no-such-model'), res.body.message);
    }
  });

  test('TS late with its default all-MiniLM-L6-v2: the ONNX download command and where its files go', async () => {
    const name = 'all-MiniLM-L6-v2';
    assertError(
      await app.post('/v1/chunk/late', TS_LATE_BODY),
      400,
      'BAD_REQUEST',
      `Embedding model '${name}' (a sentence-transformers embedding model, run as ONNX) is not installed on this server, which cannot download models. To install it: on a machine with internet access run ` +
        `\`pip install -U huggingface_hub && hf download sentence-transformers/${name} config.json tokenizer.json onnx/model.onnx --local-dir ${name}\`, ` +
        `then copy the folder ${name}/ (onnx/model.onnx, tokenizer.json and config.json) into a directory the server reads models from (--models-dir, CHUNKD_MODELS_DIR), keeping the path ${name}/; no restart is needed. ` +
        `Or the operator maps the name to a model the server has: --model-map ${name}=<installed model> (CHUNKD_MODEL_MAP), e.g. an installed model directory.`,
    );
  });

  test('older Py semantic (threshold "auto", min_sentences, min_chunk_size, threshold_step): accepted, so its model is what is missing', async () => {
    const res = await app.post('/v1/chunk/semantic', PY_OLD_SEMANTIC_BODY(TEXT));
    assertError(res, 400, 'BAD_REQUEST', potionGuide('minishlab/potion-base-32M', 'Embedding model'));
    assert.equal(res.headers.get('x-chunkd-ignored-keys'), null);
  });

  test('a threshold that is neither a number in (0, 1) nor "auto": a 422 that says what to send', async () => {
    const res = await app.post('/v1/chunk/semantic', { ...PY_OLD_SEMANTIC_BODY(TEXT), threshold: 'smart' });
    assertError(res, 422, 'VALIDATION', 'threshold must be a number > 0 and < 1 or "auto" (got "smart")');
  });

  test('slumber without an LLM: 501 naming the settings', async () => {
    assertError(await app.post('/v1/chunk/slumber', SLUMBER_BODY), 501, 'NOT_CONFIGURED', /--llm-base-url/);
  });

  test('a 422 carries the detail list and a one-line message the TS client can show', async () => {
    const res = await app.post('/v1/chunk/token', { text: 5, chunk_size: 0, chunk_overlap: -1 });
    assert.equal(res.status, 422);
    assert.ok(Array.isArray(res.body.detail) && res.body.detail.length === 3);
    assert.equal(res.body.message, 'text must be a string or a list of strings (got 5) (and 2 more problems)');
  });

  test('an unknown route: 404 with message', async () => {
    assertError(await app.request('GET', '/v1/nope'), 404, 'NOT_FOUND', /.+/);
  });
});

describe('Chonkie clients against a server with API keys', () => {
  let app: TestApp;
  before(async () => (app = await startApp({ 'api-keys': 'k-right' })));
  after(() => app.close());

  test('TS validateAuth: the right key → 200 {status: 200}; none or a wrong one → 401 (the client: invalid)', async () => {
    const ok = await app.request('GET', '/v1/auth/validate', undefined, { authorization: 'Bearer k-right' });
    assert.deepEqual([ok.status, ok.body], [200, { message: 'The API key is valid.', status: 200 }]);
    assertError(await app.request('GET', '/v1/auth/validate'), 401, 'UNAUTHORIZED', 'This server requires an API key: send Authorization: Bearer <key>.');
    assertError(
      await app.request('GET', '/v1/auth/validate', undefined, { authorization: 'Bearer k-wrong' }),
      401,
      'UNAUTHORIZED',
      'The API key is not valid.',
    );
  });

  test("Py's probe GET / needs no key; a chunk call needs one", async () => {
    assert.equal((await app.request('GET', '/')).status, 200);
    assertError(await app.post(...BODIES['py token']), 401, 'UNAUTHORIZED', /Authorization: Bearer/);
    const res = await app.request('POST', BODIES['py token'][0], BODIES['py token'][1], { authorization: 'Bearer k-right' });
    assertReadable(res, TEXT);
  });
});

describe('the model-less classes served through --model-map and --models-dir', () => {
  let app: TestApp;
  const logged: { msg: string; fields?: Record<string, unknown> }[] = [];
  const logger: Logger = { log: (_level, msg, fields) => void logged.push({ msg, fields }) };
  let map: string;

  before(async () => {
    const words = ['meeting', 'starts', 'nine', 'bring', 'quarterly', 'figures', 'lunch', 'review', 'roadmap', 'year', 'word', 'words', 'ends', 'five'];
    const rows = words.map((_, i) => [Math.cos(i), Math.sin(i), (i % 3) - 1]);
    const model2vec = await writeModel2Vec(words, rows);
    const classifier = writeTokenClassifier(CLASSIFIER_PIECES, ['.'], 16);
    // potion-base-32M installed as the guidance says: its folder copied under a --models-dir directory.
    mkdirSync(join(MODELS_ROOT, 'minishlab'), { recursive: true });
    cpSync(model2vec, join(MODELS_ROOT, 'minishlab', 'potion-base-32M'), { recursive: true });
    map = [
      `minishlab/potion-base-8M=${model2vec}`,
      `minishlab/potion-retrieval-32M=${model2vec}`,
      `nomic-ai/modernbert-embed-base=${model2vec}`,
      `mirth/chonky_modernbert_large_1=${classifier}`,
    ].join(',');
    // A boot only to see what an operator sees in the log at start; before the app's own boot,
    // since each boot exports its settings (the LLM's too) to the process environment.
    const booted = await boot(resolveSettings({ 'data-dir': join(MODELS_ROOT, 'log-data'), workers: '0', 'model-map': map }, {}), logger);
    await booted.close();
    app = await startAppWithFakeLlm({ 'model-map': map });
  });
  after(() => app.close());

  test('the map is logged at start, entry by entry', () => {
    const entry = logged.find((l) => l.msg === 'model map');
    assert.ok(entry, 'a "model map" log line');
    assert.deepEqual(entry.fields, { model_map: Object.fromEntries(map.split(',').map((e) => e.split('='))) });
  });

  test('semantic: TS (potion-base-8M, mapped) and Py (potion-base-32M, installed under --models-dir)', async () => {
    assertReadable(await app.post('/v1/chunk/semantic', semanticBody('minishlab/potion-base-8M', true)), TEXT);
    assertReadable(await app.post('/v1/chunk/semantic', semanticBody('minishlab/potion-base-32M', false)), TEXT);
  });

  test('embeddings refine with potion-retrieval-32M (mapped): every chunk gets an embedding', async () => {
    const chunks = (await app.post(...BODIES['ts recursive'])).body;
    assertReadable(await app.post('/v1/refine/embeddings', EMBEDDINGS(chunks)), TEXT, { embedding: true });
  });

  test('late with nomic-ai/modernbert-embed-base (mapped): chunks with embeddings', async () => {
    assertReadable(await app.post('/v1/chunk/late', LATE_BODY), TEXT, { embedding: true });
  });

  test('neural with mirth/chonky_modernbert_large_1 (mapped): split after each sentence the tiny model marks', async () => {
    const res = await app.post('/v1/chunk/neural', NEURAL_BODY);
    assertReadable(res, TEXT);
    assert.ok(res.body.length > 1);
  });

  test('TS neural (model sent as embedding_model, mapped): the same chunks as the model field gives', async () => {
    const res = await app.post('/v1/chunk/neural', TS_NEURAL_BODY);
    assertReadable(res, TEXT);
    assert.deepEqual(res.body, (await app.post('/v1/chunk/neural', NEURAL_BODY)).body);
  });

  test("TS semantic's min_sentences is min_sentences_per_chunk: it changes the chunks as that field does", async () => {
    const ts = (extra: Record<string, unknown>) => ({ ...semanticBody('minishlab/potion-base-8M', true), text: LONG, ...extra });
    const one = await app.post('/v1/chunk/semantic', ts({ min_sentences: 1 }));
    const five = await app.post('/v1/chunk/semantic', ts({ min_sentences: 5 }));
    assertReadable(one, LONG);
    assertReadable(five, LONG);
    assert.ok(five.body.length < one.body.length, `${five.body.length} < ${one.body.length}`);
    const { min_sentences: _, ...named } = ts({});
    assert.deepEqual(five.body, (await app.post('/v1/chunk/semantic', { ...named, min_sentences_per_chunk: 5 })).body);
  });

  test('older Py semantic, threshold "auto": chunks, and min_chunk_size bounds the groups the search accepts', async () => {
    const auto = await app.post('/v1/chunk/semantic', PY_OLD_SEMANTIC_BODY(LONG));
    assertReadable(auto, LONG);
    const large = await app.post('/v1/chunk/semantic', { ...PY_OLD_SEMANTIC_BODY(LONG), min_chunk_size: 40 });
    assertReadable(large, LONG);
    assert.ok(large.body.length < auto.body.length, 'fewer, larger chunks');
    assert.ok(
      large.body.every((c: { token_count: number }) => c.token_count >= 40),
      JSON.stringify(large.body.map((c: { token_count: number }) => c.token_count)),
    );
  });

  test('a name outside the map is not substituted: chonky_modernbert_base_1 still gets its guidance', async () => {
    assertError(
      await app.post('/v1/chunk/neural', { ...NEURAL_BODY, model: 'mirth/chonky_modernbert_base_1' }),
      400,
      'BAD_REQUEST',
      /is not installed on this server/,
    );
  });

  test('slumber with an LLM configured (a fake on 127.0.0.1)', async () => {
    assertReadable(await app.post('/v1/chunk/slumber', SLUMBER_BODY), TEXT);
  });

  test('the map reaches the worker threads: a long text, chunked in a worker, with a mapped name', async () => {
    // 3,000+ characters at the embedding cost (64) are past the inline budget (65,536): a worker runs it.
    // Last in this suite: booting another app re-exports the settings (the LLM's too) to the environment.
    const pooled = await startApp({ workers: '1', 'model-map': map });
    try {
      const long = Array(20).fill(TEXT).join(' ');
      assertReadable(await pooled.post('/v1/chunk/semantic', { ...semanticBody('minishlab/potion-base-8M', true), text: long }), long);
    } finally {
      await pooled.close();
    }
  });
});

describe('--model-map is checked at start', () => {
  const start = (map: string) => boot(resolveSettings({ 'data-dir': join(MODELS_ROOT, 'refused-data'), workers: '0', 'model-map': map }, {}), silentLogger);

  test('an entry that is not requested=installed, or a target that is not installed, stops the start', async () => {
    await assert.rejects(start('minishlab/potion-base-8M'), /--model-map \(CHUNKD_MODEL_MAP\): 'minishlab\/potion-base-8M' is not requested=installed/);
    await assert.rejects(start('a/b=c/d,a/b=e/f'), /'a\/b' is mapped twice/);
    await assert.rejects(start('minishlab/potion-base-8M=/nowhere/potion'), /names models that are not installed: \/nowhere\/potion\./);
  });

  test('the built-in model is a valid target', async () => {
    const booted = await start('minishlab/potion-base-8M=chunkd/glove-sif-100d');
    await booted.close();
  });
});

/** What Python's `Pipeline.run` does with the answer: `[Chunk.from_dict(c) for c in data.get("chunks", [])]`, a dict per item. */
function pyPipelineRun(body: {
  chunks?: unknown;
}): { text: string; start_index: number; end_index: number; token_count: number; metadata?: Record<string, unknown> }[] {
  const items = body.chunks ?? [];
  assert.ok(Array.isArray(items));
  for (const c of items)
    assert.ok(c !== null && typeof c === 'object' && !Array.isArray(c), `Chunk.from_dict needs a dict, got ${JSON.stringify(c).slice(0, 40)}`);
  return items as never;
}

/** The chunks of a flat run, back in one list per text by metadata.document; offsets checked against each text. */
function byDocument(texts: string[], chunks: ReturnType<typeof pyPipelineRun>) {
  const lists: (typeof chunks)[] = texts.map(() => []);
  const codePoints = texts.map((t) => [...t]);
  let last = 0;
  for (const c of chunks) {
    const doc = c.metadata?.document;
    assert.ok(Number.isInteger(doc) && (doc as number) >= last && (doc as number) < texts.length, 'metadata.document: the index of the text, in input order');
    last = doc as number;
    assert.equal(codePoints[last]!.slice(c.start_index, c.end_index).join(''), c.text);
    lists[last]!.push(c);
  }
  return lists;
}

describe("Python's Pipeline.run on a slug pipeline with a list of texts", () => {
  const TEXTS = [TEXT, '', 'Short text here.', CODE];
  const create = { slug: 'py-run', description: null, steps: [{ type: 'chunk', component: 'recursive', chunk_size: 16, tokenizer_or_token_counter: 'word' }] };

  for (const workers of ['0', '2']) {
    describe(workers === '0' ? 'inline' : 'a large batch split over two workers', () => {
      let app: TestApp;
      before(async () => {
        app = await startApp({ workers });
        assert.equal((await app.post('/v1/pipeline', create)).status, 200);
      });
      after(() => app.close());
      // Large enough to leave the event loop and be split over both workers (kernel/engine/placement/pool.ts).
      const texts = workers === '0' ? TEXTS : TEXTS.map((t) => Array(300).fill(t).join('\n\n'));

      test('chunks is one flat list in input order, each chunk marked with its text, the nested run regrouped', async () => {
        const flat = await app.post('/v1/pipeline/py-run', { text: texts });
        assert.equal(flat.status, 200, JSON.stringify(flat.body).slice(0, 300));
        const nested = await app.post('/v1/pipeline/py-run', { text: texts, nested: true });
        assert.equal(nested.status, 200);
        assert.equal(nested.body.chunks.length, texts.length);
        const lists = byDocument(texts, pyPipelineRun(flat.body));
        const unmarked = lists.map((l) =>
          l.map(({ metadata: { document: _, ...rest } = {}, ...c }) => (Object.keys(rest).length ? { ...c, metadata: rest } : c)),
        );
        assert.deepEqual(unmarked, nested.body.chunks, 'the flat list is the nested one, in order, with metadata.document added');
        assert.equal(lists[1]!.length, 0, 'the blank text has no chunks');
        assert.ok(lists.every((l, i) => i === 1 || l.length > 0));
      });

      test('a blank last text (on its own worker when split) adds nothing to the flat list', async () => {
        const whole = texts.join('\n\n');
        const res = await app.post('/v1/pipeline/py-run', { text: [whole, ''] });
        const lists = byDocument([whole, ''], pyPipelineRun(res.body));
        assert.deepEqual([lists[0]!.length > 0, lists[1]!.length], [true, 0]);
        assert.deepEqual(res.body.chunks.length, (await app.post('/v1/pipeline/py-run', { text: whole })).body.chunks.length);
      });

      test('a step takes the same aliases as the route: stored under the field’s own name', async () => {
        const steps = [{ type: 'chunk', component: 'semantic', min_sentences: 3, threshold: 'auto', threshold_step: 0.05 }];
        const made = await app.post('/v1/pipeline', { slug: 'aliased', description: null, steps });
        assert.equal(made.status, 200, JSON.stringify(made.body));
        const [step] = made.body.steps;
        assert.deepEqual([step.min_sentences_per_chunk, step.threshold, step.threshold_step, 'min_sentences' in step], [3, 'auto', 0.05, false]);
        await app.request('DELETE', '/v1/pipeline/aliased');
      });

      test('return_type "texts": one flat list of texts; a single text answers its list as before', async () => {
        const texts_ = await app.post('/v1/pipeline/py-run', { text: texts, return_type: 'texts' });
        const nested = await app.post('/v1/pipeline/py-run', { text: texts, return_type: 'texts', nested: true });
        assert.deepEqual(texts_.body.chunks, nested.body.chunks.flat());
        const one = await app.post('/v1/pipeline/py-run', { text: texts[0] });
        assert.ok(one.body.chunks.length > 0 && one.body.chunks.every((c: { metadata?: unknown }) => c.metadata === undefined));
      });
    });
  }
});
