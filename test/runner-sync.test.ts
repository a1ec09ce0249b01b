/**
 * The runner's inner steps (kernel/engine/steps/run-here.ts, kernel/engine/steps/chunk.ts) run without a promise when the work is
 * synchronous and as a promise when it is not: a chunker that answers with a promise, for some
 * texts of a batch or all of them, gives the very bytes a synchronous one gives, its failures and
 * aborts land where a synchronous one's do, and a plugin built once is handed out without waiting.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Type from '#typebox';
import { isThenable, inline } from '../kernel/engine/index.js';
import type { Span } from '../kernel/chunk.js';
import { defineChunker } from '../kernel/plugin.js';
import { Plugin } from '../kernel/registry.js';
import { chunkTexts } from '../kernel/engine/steps/chunk.js';
import { chunkEach as chunkMany } from './helpers/run.js';
import { idsReady } from '../kernel/ids.js';
import { DEFAULT_LIMITS } from '../kernel/chef/limits.js';
import { outputSetting, Runner, type Recipe } from '../kernel/engine/index.js';
import { runHere } from '../kernel/engine/steps/run-here.js';
import { type RunOptions } from '../kernel/engine/recipe.js';

const LIMITS = { maxOutputBytes: 1e9, maxDocumentOutputBytes: 1e9, maxChunks: 1e7 };

/** Cuts a text into pieces of `size` UTF-16 units (never inside a pair); `answer` says which texts get their spans as a promise. */
function cutter(name: string, answer: (text: string) => 'now' | 'later' | 'throw' | 'reject') {
  const cut = (text: string): Span[] => {
    const spans: Span[] = [];
    for (let start = 0; start < text.length;) {
      let end = Math.min(text.length, start + 5);
      const c = text.charCodeAt(end - 1);
      if (end < text.length && c >= 0xd800 && c <= 0xdbff) end++;
      spans.push({ start, end, tokenCount: end - start });
      start = end;
    }
    return spans;
  };
  const manifest = defineChunker({
    name,
    summary: 'Cuts every five units.',
    extras: [],
    config: Type.Object({ size: Type.Integer({ default: 5, minimum: 1, description: 'Unused.' }) }),
    load: async () => ({
      create: () => ({
        chunk(text: string) {
          const how = answer(text);
          if (how === 'throw') throw new Error(`refused ${text}`);
          if (how === 'reject') return Promise.reject(new Error(`refused ${text}`));
          return how === 'later' ? new Promise<Span[]>((resolve) => setImmediate(() => resolve(cut(text)))) : cut(text);
        },
      }),
    }),
  });
  return new Plugin(manifest, `test:${name}`);
}

const TEXTS = [
  'plain text of some length',
  '',
  '日本語の文。次の文。',
  '🦛🦛 emoji 👨‍👩‍👧 joined',
  '   ',
  'CRLF\r\nline\r\n',
  'lone \ud800 high',
  'same same same same',
];

async function answer(plugin: Plugin, docs: string[], unit: 'codepoint' | 'utf16' = 'codepoint', signal?: AbortSignal) {
  const recipe: Recipe = { steps: [{ plugin, config: plugin.validateConfig({}, ['config']) }], unit, returnType: 'chunks' };
  const parts = await new Runner(inline, LIMITS).answer(recipe, docs, { list: true, signal });
  return Buffer.concat(parts.map((p) => Buffer.from(p))).toString('utf8');
}

describe('runner: synchronous and asynchronous work give the same answers', () => {
  test('a chunker answering with a promise, for every text or some, gives the bytes of one answering at once', async () => {
    const now = cutter('now', () => 'now');
    for (const unit of ['codepoint', 'utf16'] as const) {
      const expected = await answer(now, TEXTS, unit);
      assert.ok(expected.includes('"start_index"'), 'chunks were made');
      assert.equal(
        await answer(
          cutter('later', () => 'later'),
          TEXTS,
          unit,
        ),
        expected,
        unit,
      );
      // Every other text later: the batch goes on at once after a promise, and later after an answer at once.
      let n = 0;
      assert.equal(
        await answer(
          cutter('mixed', () => (n++ % 2 ? 'later' : 'now')),
          TEXTS,
          unit,
        ),
        expected,
        `${unit} mixed`,
      );
      for (const single of TEXTS)
        assert.equal(
          await answer(
            cutter('one', () => 'later'),
            [single],
            unit,
          ),
          await answer(now, [single], unit),
        );
    }
  });

  test('chunkMany over a batch: the same chunks whether the chunker answers at once, later, or in turn', async () => {
    const config = { size: 5 };
    const expected = await chunkMany(
      cutter('now', () => 'now'),
      config,
      TEXTS,
      'codepoint',
    );
    assert.equal(expected.length, TEXTS.length);
    assert.deepEqual(
      await chunkMany(
        cutter('later', () => 'later'),
        config,
        TEXTS,
        'codepoint',
      ),
      expected,
    );
    let n = 0;
    assert.deepEqual(
      await chunkMany(
        cutter('mixed', () => (n++ % 2 ? 'later' : 'now')),
        config,
        TEXTS,
        'codepoint',
      ),
      expected,
    );
  });

  test("each document's failure is its own result and the others go on, whether it failed at once or later", async () => {
    for (const how of ['throw', 'reject'] as const) {
      for (const late of [false, true]) {
        const plugin = cutter(`each-${how}`, (text) => (text.includes('boom') ? how : late ? 'later' : 'now'));
        const recipe: Recipe = { steps: [{ plugin, config: plugin.validateConfig({}, ['config']) }], unit: 'codepoint', returnType: 'chunks' };
        const results: [number, string][] = [];
        await new Runner(inline, LIMITS).each(
          recipe,
          ['fine text', 'boom here', 'after it'],
          (i, r) => void results.push([i, 'bytes' in r ? 'bytes' : 'bug' in r ? String((r.bug as Error).message) : 'error']),
        );
        assert.deepEqual(
          results,
          [
            [0, 'bytes'],
            [1, 'refused boom here'],
            [2, 'bytes'],
          ],
          `${how} late=${late}`,
        );
      }
    }
  });

  test("runHere (a worker's task): a failing document's result is its failure and the documents after it still run", async () => {
    const options: RunOptions = {
      unit: 'codepoint',
      returnType: 'chunks',
      cap: { bytes: 1e9, setting: outputSetting(), over: 'answer' },
      maxChunks: 1e7,
      chef: { limits: DEFAULT_LIMITS },
    };
    for (const how of ['throw', 'reject'] as const) {
      for (const late of [false, true]) {
        const plugin = cutter(`here-${how}`, (text) => (text.includes('boom') ? how : late ? 'later' : 'now'));
        const results = await runHere([{ plugin, config: plugin.validateConfig({}, ['config']) }], ['fine text', 'boom here', 'after it'], options);
        assert.deepEqual(
          results.map((r) => ('bytes' in r ? 'bytes' : 'bug' in r ? (r.bug as Error).message : 'error')),
          ['bytes', 'refused boom here', 'bytes'],
          `${how} late=${late}`,
        );
      }
    }
  });

  test("a chunker's failure, thrown or rejected, is the answer's failure either way", async () => {
    for (const how of ['throw', 'reject'] as const) {
      for (const late of [false, true]) {
        // The failing text comes after one answered later (or at once): the failure is still the answer's.
        const plugin = cutter(`fails-${how}`, (text) => (text.includes('boom') ? how : late ? 'later' : 'now'));
        await assert.rejects(answer(plugin, ['fine text', 'boom here', 'never reached']), /refused boom here/, `${how} late=${late}`);
      }
    }
  });

  test('an abort between documents stops the batch, whether the document before ran at once or later', async () => {
    for (const late of [false, true]) {
      const controller = new AbortController();
      const plugin = cutter('aborts', (text) => {
        if (text === 'second') controller.abort(new Error('stopped by the caller'));
        return late ? 'later' : 'now';
      });
      await assert.rejects(answer(plugin, ['first', 'second', 'third'], 'codepoint', controller.signal), /stopped by the caller/, `late=${late}`);
    }
  });

  test('synchronous work comes back as a value, not a promise: chunkTexts and runHere once the plugin is built', async () => {
    const options: RunOptions = {
      unit: 'codepoint',
      returnType: 'chunks',
      cap: { bytes: 1e9, setting: outputSetting(), over: 'answer' },
      maxChunks: 1e7,
      chef: { limits: DEFAULT_LIMITS },
    };
    await idsReady;
    const now = cutter('value', () => 'now');
    const config = now.validateConfig({}, ['config']);
    assert.ok(isThenable(chunkTexts(now, config, ['first text'], 'codepoint')), 'not built yet: a promise');
    await now.instance(config);
    const made = chunkTexts(now, now.validateConfig({}, ['config']), ['some text', 'more text'], 'codepoint');
    assert.ok(!isThenable(made), 'built, answering at once: the chunks themselves');
    assert.deepEqual(made, await chunkMany(now, config, ['some text', 'more text'], 'codepoint'));
    const ran = runHere([{ plugin: now, config }], ['some text', 'more text'], options);
    assert.ok(!isThenable(ran) && ran.every((r) => 'bytes' in r));
    const later = cutter('promised', () => 'later');
    const laterConfig = later.validateConfig({}, ['config']);
    await later.instance(laterConfig);
    assert.ok(isThenable(runHere([{ plugin: later, config: laterConfig }], ['some text'], options)), 'a chunker that answers later: a promise');
  });

  test('a built plugin is handed out without waiting, for an equal config in a new object; another config waits for its own', async () => {
    const plugin = cutter('built', () => 'now');
    const a = plugin.validateConfig({ size: 5 }, ['config']);
    assert.equal(plugin.builtInstance(a), undefined, 'not built yet');
    const impl = await plugin.instance(a);
    assert.equal(plugin.builtInstance(plugin.validateConfig({ size: 5 }, ['config'])), impl, 'the same values in a new object');
    const b = plugin.validateConfig({ size: 7 }, ['config']);
    const other = plugin.instance(b);
    assert.ok(isThenable(other));
    assert.equal(plugin.builtInstance(b), undefined, 'asked for, not built yet');
    assert.equal(plugin.builtInstance(a), undefined, 'no longer the newest');
    const built = await other;
    assert.notEqual(built, impl);
    assert.equal(plugin.builtInstance(b), built);
    assert.equal(await plugin.instance(a), impl, 'still cached');
    await Promise.resolve();
    assert.equal(plugin.builtInstance(a), impl, 'the newest again, once its promise is read');
  });
});
