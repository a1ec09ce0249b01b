/**
 * The cost of a request is bounded by its size: parameters whose cost grows with their value have
 * schema maximums (also enforced on stored pipelines), and work is weighed by its plugin's cost per
 * character, so expensive work leaves the event loop even when small: the deadline stops it there,
 * and the server keeps answering meanwhile.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { MAX_TOKEN_REPEATS } from '../kernel/cost.js';
import { MAX_DELIMITER_LENGTH, MAX_DELIMITERS } from '../kernel/fields.js';
import { INLINE_MAX_CHARS, type WorkerPool } from '../kernel/engine/index.js';
import { runsInline } from '../kernel/engine/placement/pool.js';
import { startApp } from './helpers/app.js';
import { waitFor } from './helpers/busy-plugin.js';

describe('schema maximums', () => {
  test('delimiter lists, delimiter length and similarity_window are bounded on every route and on stored pipelines', async () => {
    const app = await startApp();
    try {
      const tooMany = Array.from({ length: MAX_DELIMITERS + 1 }, (_, i) => `d${i}`);
      const tooLong = 'x'.repeat(MAX_DELIMITER_LENGTH + 1);
      const cases: [string, Record<string, unknown>, (string | number)[]][] = [];
      for (const chunker of ['sentence', 'semantic']) {
        cases.push([chunker, { delim: tooMany }, ['delim']], [chunker, { delim: [tooLong] }, ['delim', 0]], [chunker, { delim: tooLong }, ['delim']]);
      }
      cases.push(['semantic', { similarity_window: 65 }, ['similarity_window']]);
      for (const [chunker, config, loc] of cases) {
        const res = await app.post(`/v1/chunk/${chunker}`, { text: 'One. Two.', ...config });
        assert.equal(res.status, 422, `${chunker} ${JSON.stringify(config).slice(0, 80)}: ${JSON.stringify(res.body)}`);
        assert.ok(
          res.body.detail.some((d: { loc: unknown[] }) => JSON.stringify(d.loc) === JSON.stringify(['body', ...loc])),
          JSON.stringify(res.body.detail),
        );
        const stored = await app.post('/v1/pipelines', { name: `p-${chunker}`, steps: [{ type: 'chunk', chunker, config }] });
        assert.equal(stored.status, 422, JSON.stringify(stored.body));
      }
      // 20,000 delimiters fit a pipeline body and are refused by the schema; 200,000 (1.9 MB) are
      // over the pipeline body limit and refused before the body is parsed.
      const many = await app.post('/v1/pipelines', {
        name: 'many',
        steps: [{ type: 'chunk', chunker: 'sentence', config: { delim: Array.from({ length: 20_000 }, (_, i) => `q${i}`) } }],
      });
      assert.equal(many.status, 422);
      assert.deepEqual(many.body.detail[0].loc, ['body', 'steps', 0, 'config', 'delim']);
      const huge = await app.post('/v1/pipelines', {
        name: 'huge',
        steps: [{ type: 'chunk', chunker: 'sentence', config: { delim: Array.from({ length: 200_000 }, (_, i) => `q${i}`) } }],
      });
      assert.equal(huge.status, 413);
      assert.match(huge.body.detail, /limit of \d+ bytes for POST \/v1\/pipelines/);
      assert.equal((await app.request('GET', '/v1/pipelines')).body.length, 0);
      // At the limits, accepted.
      const atLimit = await app.post('/v1/chunk/sentence', { text: 'One. Two.', delim: [...tooMany.slice(2), 'x'.repeat(MAX_DELIMITER_LENGTH)] });
      assert.equal(atLimit.status, 200, JSON.stringify(atLimit.body));
    } finally {
      await app.close();
    }
  });

  test('an overlap may repeat a token in at most MAX_TOKEN_REPEATS chunks: 60 KB cannot become gigabytes', async () => {
    const app = await startApp();
    try {
      const text = 'lorem ipsum dolor sit amet. '.repeat(200);
      for (const chunker of ['token', 'sentence']) {
        const res = await app.post(`/v1/chunk/${chunker}`, { text, chunk_size: 5000, chunk_overlap: 4999 });
        assert.equal(res.status, 400, `${chunker}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        assert.match(res.body.detail, new RegExp(`the most is ${MAX_TOKEN_REPEATS}: lower chunk_overlap to at most 4921`));
        const stored = await app.post('/v1/pipelines', {
          name: `overlap-${chunker}`,
          steps: [{ type: 'chunk', chunker, config: { chunk_size: 5000, chunk_overlap: 4999 } }],
        });
        assert.equal(stored.status, 422, JSON.stringify(stored.body));
        const atLimit = await app.post(`/v1/chunk/${chunker}`, { text: text.slice(0, 2000), chunk_size: 640, chunk_overlap: 630 });
        assert.equal(atLimit.status, 200, JSON.stringify(atLimit.body).slice(0, 200));
      }
    } finally {
      await app.close();
    }
  });

  test('every list in a plugin config has a maximum number of items', async () => {
    const app = await startApp();
    try {
      const unbounded: string[] = [];
      const walk = (schema: Record<string, unknown>, at: string) => {
        if (schema.type === 'array' && typeof schema.maxItems !== 'number') unbounded.push(at);
        for (const [k, v] of Object.entries(schema)) if (v && typeof v === 'object') walk(v as Record<string, unknown>, `${at}.${k}`);
      };
      for (const p of app.booted.deps.registry.list()) walk(p.manifest.config as unknown as Record<string, unknown>, p.name);
      assert.deepEqual(unbounded, []);
    } finally {
      await app.close();
    }
  });
});

describe('where work runs is decided by its cost, not only its size', () => {
  test('the built-in manifests: cheap counting stays inline, BPE, embeddings and parsing leave it sooner', async () => {
    const app = await startApp();
    try {
      const { registry } = app.booted.deps;
      const cost = (kind: 'chunker' | 'refinery', name: string, config: Record<string, unknown>) => {
        const p = registry.get(kind, name);
        return p.cost(p.validateConfig({ ...config }));
      };
      assert.equal(cost('chunker', 'token', {}), 1);
      assert.ok(cost('chunker', 'token', { tokenizer: 'cl100k_base' }) > 1);
      assert.ok(cost('chunker', 'semantic', {}) > cost('chunker', 'token', { tokenizer: 'cl100k_base' }));
      assert.ok(cost('chunker', 'sentence', { delim: Array.from({ length: 64 }, (_, i) => `${i}`) }) > cost('chunker', 'sentence', {}));
      assert.ok(cost('refinery', 'embeddings', {}) > 1);
      assert.equal(runsInline(10_000, cost('chunker', 'token', {}), 2), true, 'a small cheap request stays on the event loop');
      assert.equal(runsInline(10_000, cost('chunker', 'semantic', {}), 2), false);
      assert.equal(runsInline(INLINE_MAX_CHARS, 1, 2), false);
      assert.equal(runsInline(INLINE_MAX_CHARS * 10, 1000, 0), true, 'without workers everything runs inline');
    } finally {
      await app.close();
    }
  });

  const plugins = mkdtempSync(join(tmpdir(), 'chunkd-costly-'));
  after(() => rmSync(plugins, { recursive: true, force: true }));
  mkdirSync(join(plugins, 'costly'));
  // A chunker that declares a high cost and holds its thread until released: small input, slow work.
  writeFileSync(
    join(plugins, 'costly', 'index.mjs'),
    `export default { name: 'costly', kind: 'chunker', summary: 'Slow per character.', extras: [],
      config: { type: 'object', properties: { marker_dir: { type: 'string', default: '', description: 'Marker files.' } } },
      cost: () => 1e6,
      load: () => import('./impl.mjs') };`,
  );
  writeFileSync(
    join(plugins, 'costly', 'impl.mjs'),
    `import { existsSync, writeFileSync } from 'node:fs';
     export const create = ({ marker_dir }) => ({ chunk(text) {
       writeFileSync(marker_dir + '/started', '');
       const t0 = Date.now();
       while (!existsSync(marker_dir + '/release') && Date.now() - t0 < 30000);
       return [{ start: 0, end: text.length, tokenCount: 1 }];
     } });`,
  );

  test('a small request to a costly plugin runs in a worker: /health answers while it runs, and the deadline answers 504', async () => {
    const app = await startApp({ 'request-timeout-ms': '3000', 'plugins-dir': plugins, workers: '1' });
    const markers = mkdtempSync(join(plugins, '_markers-'));
    try {
      await (app.booted.deps.executor as WorkerPool).ready;
      const slow = app.post('/v1/chunk/costly', { text: 'tiny text', marker_dir: markers });
      await waitFor(join(markers, 'started'));
      const health = await app.request('GET', '/health');
      assert.equal(health.status, 200, 'the event loop is free while the costly work runs');
      const res = await slow;
      assert.equal(res.status, 504, JSON.stringify(res.body));
      assert.equal(res.body.code, 'TIMEOUT');
    } finally {
      writeFileSync(join(markers, 'release'), '');
      await app.close();
    }
    assert.ok(existsSync(join(markers, 'started')));
  });

  test('semantic on a body under 64 KiB with a wide window: the deadline stops it (504), not a late 200', async () => {
    const app = await startApp({ 'request-timeout-ms': '50', workers: '1' });
    try {
      await (app.booted.deps.executor as WorkerPool).ready;
      const words = ['bread', 'dough', 'oven', 'galaxy', 'star', 'telescope', 'river', 'stone', 'music', 'violin'];
      const text = Array.from({ length: 6000 }, (_, i) => `${words[(i * 7) % 10]} ${words[(i * 3) % 10]}.`)
        .join(' ')
        .slice(0, 60_000);
      // The embedded model is loaded on this thread first, so what follows is pure computation.
      const { registry } = app.booted.deps;
      const semantic = registry.get('chunker', 'semantic');
      await semantic.instance(semantic.validateConfig({ similarity_window: 64, min_characters_per_sentence: 1 }));
      const res = await app.post('/v1/chunk/semantic', { text, similarity_window: 64, min_characters_per_sentence: 1 });
      assert.equal(res.status, 504, `${res.status}: ${JSON.stringify(res.body).slice(0, 200)}`);
    } finally {
      await app.close();
    }
  });
});
