/**
 * The runner's write step (kernel/engine/runner.ts, kernel/engine/steps/write.ts): the steps before it run as
 * without it, and each document's chunks, with their embeddings, reach the step's target once,
 * before the document's result is given; a target's refusal is that document's result.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Chunk } from '../kernel/chunk.js';
import { discover } from '../kernel/discovery.js';
import { ChunkdError } from '../kernel/errors.js';
import type { Plugin, Registry } from '../kernel/registry.js';
import { inline, WorkerPool, Runner } from '../kernel/engine/index.js';
import { parseConfig } from '../kernel/request.js';
import { memoryHandshakeDir } from './helpers/memory-handshake.js';
import type { StoreTarget, DocResult, Recipe } from '../kernel/engine/index.js';

const LIMITS = { maxOutputBytes: 1 << 24, maxDocumentOutputBytes: 1 << 24, maxChunks: 10_000 };
// A handshake as the runner sees one: only its kind matters to the runner (the target does the writing).
const handshake = { kind: 'handshake', name: 'memory', source: 'memory' } as unknown as Plugin;

class Recorder implements StoreTarget {
  writes: { index: number; digest: string; chunks: (Chunk & { embedding: number[] })[] }[] = [];
  refuse?: number;
  async write(index: number, digest: string, chunks: Chunk[]) {
    if (index === this.refuse) throw new ChunkdError('CONFLICT', 'The collection holds another model.');
    this.writes.push({ index, digest, chunks: chunks.map((c) => ({ ...c, embedding: Array.from(c.embedding!) })) });
  }
}

describe('write step', () => {
  let registry: Registry;
  before(async () => {
    registry = await discover([memoryHandshakeDir()]);
  });
  const recipe = (target: StoreTarget, answerEmbeddings: boolean): Recipe => {
    const token = registry.get('chunker', 'token');
    const embeddings = registry.get('refinery', 'embeddings');
    return {
      steps: [
        { plugin: token, config: parseConfig(token, { chunk_size: 4 }, []) },
        { plugin: embeddings, config: parseConfig(embeddings, {}, []) },
        { plugin: handshake, config: { answer_embeddings: answerEmbeddings }, target },
      ],
      unit: 'codepoint',
      returnType: 'chunks',
    };
  };
  const texts = ['The river flooded the valley. Farmers moved their herds uphill.', 'In spring the water receded and the fields were green again.'];

  test('each document is written once, with the chunks the answer holds and their embeddings', async () => {
    const target = new Recorder();
    const parts = await new Runner(inline, LIMITS).answer(recipe(target, false), texts, { list: true });
    const answer = JSON.parse(Buffer.concat(parts).toString()) as Chunk[][];
    assert.deepEqual(target.writes.map((w) => w.index).sort(), [0, 1]);
    for (const w of target.writes) {
      const chunks = answer[w.index]!;
      assert.ok(chunks.length > 1);
      assert.deepEqual(
        w.chunks.map(({ embedding: _, ...c }) => c),
        chunks,
        'the same chunks as answered',
      );
      assert.ok(
        chunks.every((c) => c.embedding === undefined),
        'an embedding the write step needed is not answered',
      );
      assert.ok(w.chunks.every((c) => c.embedding.length === 100));
      assert.ok(w.chunks.some((c) => c.embedding.some((x) => x !== 0)));
      assert.match(w.digest, /^[0-9a-f]{64}$/);
      for (const c of chunks) assert.equal([...texts[w.index]!].slice(c.start_index, c.end_index).join(''), c.text);
    }
    assert.notEqual(target.writes[0]!.digest, target.writes[1]!.digest);
  });

  test('with answer_embeddings the answer keeps the embeddings the store got', async () => {
    const target = new Recorder();
    const parts = await new Runner(inline, LIMITS).answer(recipe(target, true), [texts[0]!], { list: false });
    const answer = JSON.parse(Buffer.concat(parts).toString()) as Chunk[];
    assert.equal(target.writes.length, 1);
    assert.deepEqual(
      answer.map((c) => c.embedding!.map((x) => Math.fround(x))),
      target.writes[0]!.chunks.map((c) => c.embedding),
    );
  });

  test("the store's refusal is that document's result; the others are written", async () => {
    const target = new Recorder();
    target.refuse = 0;
    const results = new Map<number, DocResult>();
    await new Runner(inline, LIMITS).each(recipe(target, false), texts, (i, r) => void results.set(i, r));
    const first = results.get(0)!;
    assert.ok('error' in first && first.error.code === 'CONFLICT');
    assert.ok('bytes' in results.get(1)!);
    assert.deepEqual(
      target.writes.map((w) => w.index),
      [1],
    );
  });
});

describe('write step in a worker', () => {
  test('the steps run in the pool, the rows come back with their vectors, the write happens here', async () => {
    const registry = await discover([memoryHandshakeDir()]);
    const pool = new WorkerPool({ threads: 1 });
    try {
      await pool.ready;
      const token = registry.get('chunker', 'token');
      const embeddings = registry.get('refinery', 'embeddings');
      const target = new Recorder();
      const recipe: Recipe = {
        steps: [
          { plugin: token, config: parseConfig(token, { chunk_size: 64 }, []) },
          { plugin: embeddings, config: parseConfig(embeddings, {}, []) },
          // The real handshake plugin: the worker loads its manifest by source, and never opens it.
          { plugin: registry.get('handshake', 'memory'), config: { answer_embeddings: false }, target },
        ],
        unit: 'codepoint',
        returnType: 'chunks',
      };
      // Line breaks (LF, CRLF, U+2028), CJK, emoji and repeated text: the rows cross as JSON lines, and every chunk comes back as it was.
      const text = 'The river flooded the valley.\r\nFarmers moved\ntheir herds uphill \u2028 川が谷を浸した。🌊👩‍🌾 '.repeat(200);
      const parts = await new Runner(pool, LIMITS).answer(recipe, [text], { list: false });
      assert.equal(pool.tasksByKind.run, 1, 'the steps ran in a worker');
      const answer = JSON.parse(Buffer.concat(parts).toString()) as Chunk[];
      assert.equal(target.writes.length, 1);
      assert.deepEqual(
        target.writes[0]!.chunks.map(({ embedding: _, ...c }) => c),
        answer,
      );
      assert.ok(target.writes[0]!.chunks.every((c) => c.embedding.length === 100));
      const points = [...text]; // the recipe's unit: offsets count code points
      for (const c of target.writes[0]!.chunks) assert.equal(c.text, points.slice(c.start_index, c.end_index).join(''));
    } finally {
      await pool.close();
    }
  });
});
