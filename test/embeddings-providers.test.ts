import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { tempDir, writeModel2Vec, writeOnnx } from './helpers/tiny-models.js';
import { loadEmbedder } from '../kernel/embeddings/embedder.js';
import { API_BATCH } from '../kernel/embeddings/providers/openai.js';
import { rejectsWith, withEnv } from './helpers/env.js';

const close = (a: ArrayLike<number>, b: number[]) => a.length === b.length && b.every((x, i) => Math.abs(a[i]! - x) < 1e-5);
const unit = (v: number[]) => v.map((x) => x / Math.hypot(...v));
const mean = (...rows: number[][]) => rows[0]!.map((_, d) => rows.reduce((s, r) => s + r[d]!, 0) / rows.length);

describe('Model2Vec directories', () => {
  const rows = [
    [1, 0, 0],
    [0, 2, 0],
    [0, 0, 3],
  ];
  const cases: [string, { weights?: number[]; normalize?: boolean }, string, number[]][] = [
    ['mean of the token rows, normalised', {}, 'alpha beta', unit(mean(rows[0]!, rows[1]!))],
    ['unknown words are dropped', {}, 'alpha zzz', [1, 0, 0]],
    ['per-token weights scale the rows', { weights: [2, 1, 1] }, 'alpha beta', unit(mean([2, 0, 0], rows[1]!))],
    ['normalize: false keeps the raw mean', { normalize: false }, 'Alpha, gamma', mean(rows[0]!, rows[2]!)],
    ['a text with no known token is the zero vector', {}, 'zzz', [0, 0, 0]],
  ];
  for (const [name, opts, text, expected] of cases) {
    test(name, async () => {
      const dir = await writeModel2Vec(['alpha', 'beta', 'gamma'], rows, opts);
      const e = await loadEmbedder(dir);
      assert.equal(e.dimension, 3);
      const [v] = await e.embed([text]);
      assert.ok(close(v!, expected), `${[...v!]} ≠ ${expected}`);
    });
  }

  test('its tokenizer.json counts tokens', async () => {
    const e = await loadEmbedder(await writeModel2Vec(['alpha'], [[1, 0]]));
    assert.equal(e.tokenizer.count('alpha, beta!'), 4);
  });
});

describe('ONNX sentence encoders', () => {
  // vocabulary: [PAD] [UNK] [CLS] [SEP] then the pieces; the table has one row per id
  const pieces = ['red', 'blue', 'green'];
  const table = [
    [0, 0, 0],
    [9, 9, 9],
    [1, 1, 0],
    [0, 1, 1],
    [4, 0, 0],
    [0, 4, 0],
    [0, 0, 4],
  ];
  const [cls, sep, red, blue] = [table[2]!, table[3]!, table[4]!, table[5]!];
  const cases: [string, 'cls' | 'max' | undefined, string, number[]][] = [
    ['mean pooling over [CLS] tokens [SEP] (the default)', undefined, 'red blue', unit(mean(cls, red, blue, sep))],
    ['CLS pooling from 1_Pooling/config.json', 'cls', 'red blue', unit(cls)],
    ['max pooling', 'max', 'red', unit([4, 1, 1])],
  ];
  for (const [name, pooling, text, expected] of cases) {
    test(name, async () => {
      const e = await loadEmbedder(writeOnnx(pieces, table, pooling));
      assert.equal(e.dimension, 3);
      const [v] = await e.embed([text]);
      assert.ok(close(v!, expected), `${[...v!]} ≠ ${expected}`);
    });
  }

  test('padding in a batch does not change a vector', async () => {
    const e = await loadEmbedder(writeOnnx(pieces, table));
    const [alone] = await e.embed(['red']);
    const [inBatch] = await e.embed(['red', 'red blue green blue red']);
    assert.ok(close(inBatch!, [...alone!]));
  });

  test('without onnxruntime-node an ONNX model is a 501 with the install line; Model2Vec still works', async () => {
    const dir = writeOnnx(pieces, table);
    await withEnv({ CHUNKD_HIDE_PACKAGES: 'onnxruntime-node' }, async () => {
      await rejectsWith(loadEmbedder(dir), 501, /npm install onnxruntime-node/);
      const m2v = await loadEmbedder(await writeModel2Vec(['a'], [[1]]));
      assert.equal((await m2v.embed(['a']))[0]!.length, 1);
    });
  });
});

describe('names that resolve to nothing', () => {
  const cases: [string, RegExp][] = [
    ['no such model!', /not a known model nor a model directory under the configured model roots/],
    ['/nonexistent/model-dir', /not a known model nor a model directory under the configured model roots/],
    [tempDir(), /model\.safetensors for Model2Vec, or model\.onnx for ONNX/],
  ];
  for (const [name, message] of cases) test(`${name} → 400`, () => rejectsWith(loadEmbedder(name), 400, message));
});

describe('Hugging Face names', () => {
  test('resolve from the hub cache under HF_HOME (refs/main → snapshot)', async () => {
    const home = tempDir();
    const src = await writeModel2Vec(['alpha'], [[0, 1]]);
    const repo = join(home, 'hub', 'models--acme--tiny-static');
    const snap = join(repo, 'snapshots', 'abc123');
    mkdirSync(join(repo, 'refs'), { recursive: true });
    mkdirSync(join(snap, '..'), { recursive: true });
    await import('node:fs/promises').then((fs) => fs.cp(src, snap, { recursive: true }));
    writeFileSync(join(repo, 'refs', 'main'), 'abc123');
    const e = await withEnv({ HF_HOME: home, HF_HUB_CACHE: undefined, HF_ENDPOINT: undefined }, () => loadEmbedder('acme/tiny-static'));
    assert.ok(close((await e.embed(['alpha']))[0]!, [0, 1]));
  });

  test('offline and not cached: a 400 naming the directory to fill', async () => {
    const home = tempDir();
    await withEnv({ HF_HOME: home, HF_HUB_CACHE: undefined, HF_ENDPOINT: undefined }, () =>
      rejectsWith(
        loadEmbedder('acme/absent-model'),
        400,
        new RegExp(`${join(home, 'hub', 'models--acme--absent-model', 'snapshots', 'main').replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')}`),
      ),
    );
  });

  test('with HF_ENDPOINT, downloaded into the cache once, then served from it', async () => {
    const src = await writeModel2Vec(['alpha'], [[3, 4]]);
    const { readFileSync } = await import('node:fs');
    const seen: string[] = [];
    const server = await listen((req, res) => {
      seen.push(req.url!);
      const m = /^\/acme\/hosted\/resolve\/main\/(.+)$/.exec(req.url!);
      try {
        res.end(readFileSync(join(src, m![1]!)));
      } catch {
        res.statusCode = 404;
        res.end();
      }
    });
    const home = tempDir();
    const e = await withEnv({ HF_HOME: home, HF_HUB_CACHE: undefined, HF_ENDPOINT: url(server) }, () => loadEmbedder('acme/hosted'));
    assert.ok(close((await e.embed(['alpha']))[0]!, [0.6, 0.8]));
    assert.ok(seen.includes('/acme/hosted/resolve/main/model.safetensors') && seen.includes('/acme/hosted/resolve/main/tokenizer.json'));
    stop(server);
  });
});

describe('OpenAI-compatible APIs (a fake server on 127.0.0.1)', () => {
  interface Call {
    auth?: string;
    model: string;
    inputs: string[];
  }
  const calls: Call[] = [];
  let failNext = 0;
  let server: Server;
  const start = async () => {
    server ??= await listen(async (req, res) => {
      const body = JSON.parse(await read(req)) as { model: string; input: string[] };
      calls.push({ auth: req.headers.authorization, model: body.model, inputs: body.input });
      res.setHeader('content-type', 'application/json');
      if (failNext > 0) {
        failNext--;
        res.statusCode = 429;
        res.setHeader('retry-after', '0');
        res.end(JSON.stringify({ error: { message: 'slow down' } }));
        return;
      }
      if (body.model === 'refused') {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: { message: 'The model `refused` does not exist' } }));
        return;
      }
      // each vector: [length of the text, 1]; returned in reverse order to check the index sort
      const data = body.input.map((t, index) => ({ object: 'embedding', index, embedding: [t.length, 1] })).reverse();
      res.end(JSON.stringify({ object: 'list', data, model: body.model }));
    });
    return `${url(server)}/v1`;
  };
  after(() => server && stop(server));
  const api = async <T>(fn: () => Promise<T>, key: string | undefined = 'sk-test') => withEnv({ OPENAI_BASE_URL: await start(), OPENAI_API_KEY: key }, fn);

  test('sends the key, batches the inputs, keeps the order', async () => {
    calls.length = 0;
    const texts = Array.from({ length: API_BATCH + 5 }, (_, i) => 'x'.repeat(i + 1));
    const vectors = await api(async () => (await loadEmbedder('openai/fake-embed')).embed(texts));
    assert.deepEqual(
      calls.map((c) => c.inputs.length),
      [API_BATCH, 5],
    );
    assert.ok(calls.every((c) => c.auth === 'Bearer sk-test' && c.model === 'fake-embed'));
    assert.deepEqual(
      vectors.map((v) => v[0]),
      texts.map((t) => t.length),
    );
  });

  test('a 429 is retried, then succeeds', async () => {
    calls.length = 0;
    failNext = 1;
    const [v] = await api(async () => (await loadEmbedder('text-embedding-3-small')).embed(['abc']));
    assert.equal(calls.length, 2);
    assert.deepEqual([...v!], [3, 1]);
  });

  test('an API refusal is a 400 carrying its message', () =>
    api(() =>
      rejectsWith(
        loadEmbedder('openai/refused').then((e) => e.embed(['a'])),
        400,
        /does not exist/,
      ),
    ));

  test('without OPENAI_API_KEY (and no OPENAI_BASE_URL) a 400 before any call', async () => {
    calls.length = 0;
    await withEnv({ OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined }, () =>
      rejectsWith(loadEmbedder('text-embedding-3-large'), 400, /OPENAI_API_KEY is not set/),
    );
    assert.equal(calls.length, 0);
  });

  test('API models count tokens with cl100k_base', async () => {
    const e = await api(() => loadEmbedder('openai/fake-embed'));
    assert.equal(e.tokenizer.name, 'cl100k_base');
  });
});

function listen(handler: (req: IncomingMessage, res: import('node:http').ServerResponse) => void): Promise<Server> {
  return new Promise((resolve) => {
    const s = createServer(handler);
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
}
const stop = (s: Server) => {
  s.closeAllConnections();
  s.close();
};
const url = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
async function read(req: IncomingMessage): Promise<string> {
  let s = '';
  for await (const part of req) s += part;
  return s;
}
