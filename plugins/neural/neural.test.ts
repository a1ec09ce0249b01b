import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { WorkerPool } from '../../kernel/engine/index.js';
import { startApp, type TestApp } from '../../test/helpers/app.js';
import { CLASSIFIER_PIECES, tempDir, tinyHubCache, writeTokenClassifier, writeTokenizer, wordPieceJson } from '../../test/helpers/tiny-models.js';
import { cutsToRanges, entities, mergeClose, type Entity } from './entities.js';
import { create } from './impl.js';
import { rejectsWith, setEnv, withEnv } from '../../test/helpers/env.js';

async function pieces(model: string, min: number, text: string): Promise<string[]> {
  const spans = await (await create({ model, min_characters_per_chunk: min })).chunk(text);
  return spans.map((s) => text.slice(s.start, s.end));
}

describe('split points: the token-classification pipeline’s "simple" aggregation', () => {
  const text = 'ab cd. ef gh';
  const ends = Uint32Array.from([2, 5, 6, 9, 12]); // ab | cd | . | ef | gh
  const cases: [string, string[], Entity[]][] = [
    ['O tokens are dropped', ['O', 'O', 'O', 'O', 'O'], []],
    ['one marked token; its start skips the space before it', ['O', 'sep', 'O', 'O', 'O'], [{ start: 3, end: 5 }]],
    ['consecutive tokens with one label form one entity', ['O', 'sep', 'sep', 'O', 'O'], [{ start: 3, end: 6 }]],
    [
      'B- starts a new entity; I- continues it',
      ['B-sep', 'I-sep', 'B-sep', 'O', 'I-sep'],
      [
        { start: 0, end: 5 },
        { start: 5, end: 6 },
        { start: 10, end: 12 },
      ],
    ],
    [
      'different labels are different entities',
      ['x', 'y', 'O', 'O', 'O'],
      [
        { start: 0, end: 2 },
        { start: 3, end: 5 },
      ],
    ],
  ];
  for (const [name, labels, expected] of cases) test(name, () => assert.deepEqual(entities(text, ends, labels), expected));
});

describe('Chonkie’s min_characters_per_chunk rule and the cuts', () => {
  const e = (start: number, end: number): Entity => ({ start, end });
  const cases: [string, Entity[], number, Entity[]][] = [
    ['far apart: all kept', [e(5, 6), e(20, 21), e(40, 41)], 10, [e(5, 6), e(20, 21), e(40, 41)]],
    ['too close to the previous one: replaces it', [e(5, 6), e(10, 11), e(40, 41)], 10, [e(10, 11), e(40, 41)]],
    ['a run of close ones collapses to the last', [e(5, 6), e(9, 10), e(14, 15), e(18, 19)], 10, [e(18, 19)]],
    ['0 keeps every split', [e(5, 6), e(6, 7)], 0, [e(5, 6), e(6, 7)]],
  ];
  for (const [name, found, min, expected] of cases) test(name, () => assert.deepEqual(mergeClose(found, min), expected));

  test('chunks end where entities end and tile the text', () => {
    assert.deepEqual(cutsToRanges([e(3, 5), e(8, 9)], 12), [
      [0, 5],
      [5, 9],
      [9, 12],
    ]);
    assert.deepEqual(cutsToRanges([e(3, 12)], 12), [[0, 12]]);
    assert.deepEqual(cutsToRanges([], 12), [[0, 12]]);
  });
});

describe('inference with a tiny ONNX classifier (it marks every period)', () => {
  let dir: string;
  before(() => (dir = writeTokenClassifier(CLASSIFIER_PIECES, ['.'], 8)));

  test('splits after each period, with Chonkie’s merging of close split points', async () => {
    const text = 'The meeting starts at nine. Bring the quarterly figures. One. Two. After lunch we review the roadmap.';
    assert.deepEqual(await pieces(dir, 0, text), [
      'The meeting starts at nine.',
      ' Bring the quarterly figures.',
      ' One.',
      ' Two.',
      ' After lunch we review the roadmap.',
    ]);
    // " One." starts 1 character after the previous split: it replaces it, and so does " Two.".
    assert.deepEqual(await pieces(dir, 10, text), [
      'The meeting starts at nine.',
      ' Bring the quarterly figures. One. Two.',
      ' After lunch we review the roadmap.',
    ]);
  });

  test('a document many windows long: every period is found at its own offset', async () => {
    const words = ['one', 'two', 'three', 'word', 'ok', 'the', 'a'];
    let text = '';
    for (let i = 0; i < 150; i++) text += `${i ? ' ' : ''}${Array.from({ length: 1 + ((i * 5) % 7) }, (_, k) => words[(i + k) % words.length]).join(' ')}.`;
    const periods = [...text.matchAll(/\./g)].map((m) => m.index! + 1);
    const expected = periods.map((end, i) => text.slice(i ? periods[i - 1] : 0, end));
    const got = await pieces(dir, 0, text);
    assert.equal(got.length, 150);
    assert.deepEqual(got, expected);
  });

  test('token_count is the model tokenizer’s count of the chunk', async () => {
    const text = 'One two three. Word ok.';
    const spans = await (await create({ model: dir, min_characters_per_chunk: 0 })).chunk(text);
    assert.deepEqual(
      spans.map((s) => s.tokenCount),
      [4, 3],
    );
  });
});

describe('models the neural chunker cannot load', () => {
  test('a Hugging Face name absent from the cache: 400 saying where to put the files and how to export them', async () => {
    const cache = tempDir('chunkd-hub-');
    await withEnv({ HF_HUB_CACHE: cache, HF_ENDPOINT: undefined }, () =>
      rejectsWith(
        create({ model: 'mirth/chonky_modernbert_large_1', min_characters_per_chunk: 10 }),
        400,
        /Token-classification model 'mirth\/chonky_modernbert_large_1' \(a Chonky token-classification model, run as ONNX\) is not installed on this server.*optimum-cli export onnx --task token-classification --model mirth\/chonky_modernbert_large_1.*config\.json with id2label.*models--mirth--chonky_modernbert_large_1/,
      ),
    );
  });
  test('a directory that does not exist, or lies outside the model roots: the same 400, naming the files it must hold', async () => {
    const missing = join(tempDir(), 'nope');
    await rejectsWith(create({ model: missing, min_characters_per_chunk: 10 }), 400, /not a model directory under the configured model roots.*model\.onnx/);
    const message = async (model: string) =>
      (
        await create({ model, min_characters_per_chunk: 10 }).then(
          () => '',
          (e: Error) => e.message,
        )
      ).replaceAll(model, '<name>');
    assert.equal(await message('/etc'), await message(missing)); // an existing directory outside the roots reads the same
  });
  test('a name that is neither a path nor org/model: 400', async () => {
    await rejectsWith(create({ model: 'chonky', min_characters_per_chunk: 10 }), 400, /Unknown token-classification model 'chonky'/);
  });
  test('a directory without model.onnx: 400', async () => {
    const dir = tempDir();
    writeTokenizer(wordPieceJson(['a']), dir);
    await rejectsWith(create({ model: dir, min_characters_per_chunk: 10 }), 400, /has no model\.onnx/);
  });
  test('a model without id2label in config.json: 400', async () => {
    const dir = writeTokenClassifier(CLASSIFIER_PIECES, ['.'], 8);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ architectures: ['X'] }));
    await rejectsWith(create({ model: dir, min_characters_per_chunk: 10 }), 400, /id2label/);
  });
  test('labels that do not match the model’s outputs: 400', async () => {
    const dir = writeTokenClassifier(CLASSIFIER_PIECES, ['.'], 8);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ id2label: { 0: 'O', 1: 'B', 2: 'C' } }));
    const impl = await create({ model: dir, min_characters_per_chunk: 10 });
    await rejectsWith(
      Promise.resolve().then(() => impl.chunk('One.')),
      400,
      /2 scores per token but config\.json names 3 labels/,
    );
  });
});

let restoreEnv: () => void;

describe('HTTP: the bodies Chonkie’s clients send to /v1/chunk/neural', () => {
  let app: TestApp;
  before(async () => {
    restoreEnv = setEnv({ HF_HUB_CACHE: tinyHubCache(['mirth/chonky_modernbert_large_1']) });
    app = await startApp();
  });
  after(async () => {
    restoreEnv();
    await app.close();
  });
  const text = 'The meeting starts at nine. Bring the quarterly figures. After lunch we review the roadmap for next year.';
  const clientBody = { text, model: 'mirth/chonky_modernbert_large_1', min_characters_per_chunk: 10 };

  test('the Python client first probes GET /, which answers 200', async () => {
    assert.equal((await app.request('GET', '/')).status, 200);
  });

  test('the clients’ body: chunks with text, offsets and token_count, tiling the text', async () => {
    const res = await app.post('/v1/chunk/neural', clientBody);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.map((c: { text: string }) => c.text),
      ['The meeting starts at nine.', ' Bring the quarterly figures.', ' After lunch we review the roadmap for next year.'],
    );
    assert.deepEqual(
      res.body.map((c: { start_index: number }) => c.start_index),
      [0, 27, 56],
    );
    for (const c of res.body) assert.deepEqual(Object.keys(c), ['id', 'text', 'start_index', 'end_index', 'token_count']);
  });

  test('a list of texts gives one list per text', async () => {
    const res = await app.post('/v1/chunk/neural', { ...clientBody, text: [text, 'One. Two.'] });
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 2);
    assert.equal(res.body[0].length, 3);
  });

  test('another Chonky name, not in the cache: 400 with one string detail', async () => {
    const res = await app.post('/v1/chunk/neural', { ...clientBody, model: 'mirth/chonky_modernbert_base_1' });
    assert.equal(res.status, 400);
    assert.equal(typeof res.body.detail, 'string');
    assert.match(res.body.detail, /is not installed on this server/);
  });

  test('a large text runs in the worker pool (the model loads there) and answers what the inline path answers', async () => {
    const pooled = await startApp({ workers: '1' });
    try {
      const big = { ...clientBody, text: `${text} 雨が降った。🦛\r\n`.repeat(600) };
      const pool = pooled.booted.deps.executor as WorkerPool;
      const before = pool.tasksRun;
      const [a, b] = await Promise.all([pooled.post('/v1/chunk/neural', big), app.post('/v1/chunk/neural', big)]);
      assert.equal(a.status, 200, JSON.stringify(a.body).slice(0, 300));
      assert.ok(pool.tasksRun > before, 'the text ran in a worker');
      assert.ok(a.body.length >= 1800);
      assert.deepEqual(a.body, b.body);
    } finally {
      await pooled.close();
    }
  });

  test('without onnxruntime-node: 501 with the install command', async () => {
    // Extras are probed when the server starts: a server that cannot see the package.
    const res = await withEnv({ CHUNKD_HIDE_PACKAGES: 'onnxruntime-node' }, async () => {
      const bare = await startApp();
      try {
        return await bare.post('/v1/chunk/neural', clientBody);
      } finally {
        await bare.close();
      }
    });
    assert.equal(res.status, 501);
    assert.equal(res.body.code, 'MISSING_EXTRA');
    assert.match(res.body.detail, /npm install onnxruntime-node/);
  });
});
