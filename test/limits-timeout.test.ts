/** Limits and deadlines as an operator relies on them: a 413 that names the limit and its setting, a 504 that stops the work. */
import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { WorkerPool } from '../kernel/engine/index.js';
import { startApp } from './helpers/app.js';
import { BIG_TEXT, busyPluginDir, markerDir } from './helpers/busy-plugin.js';
import { chunkEach } from './helpers/run.js';

const busy = busyPluginDir();
after(() => rmSync(busy, { recursive: true, force: true }));

describe('limits: 413 naming the limit and the setting', () => {
  test('texts per batch, characters per text, chunks per refine call, body bytes', async () => {
    const app = await startApp({ 'max-texts': '3', 'max-text-chars': '10', 'max-chunks': '2', 'max-body-bytes': '2000' });
    try {
      const cases: [string, unknown, RegExp][] = [
        ['/v1/chunk/token', { text: ['a', 'b', 'c', 'd'] }, /The batch has 4 texts; the limit is 3\. .*--max-texts \(CHUNKD_MAX_TEXTS\)/],
        ['/v1/chunk/token', { text: 'x'.repeat(11) }, /The text has 11 characters; the limit is 10\. .*--max-text-chars \(CHUNKD_MAX_TEXT_CHARS\)/],
        ['/v1/chunk/token', { text: ['ok', 'x'.repeat(11)] }, /Text 1 has 11 characters/],
        ['/v1/chunk/token', { text: 'x'.repeat(3000) }, /larger than the limit of 2000 bytes.*--max-body-bytes/],
      ];
      for (const [path, body, message] of cases) {
        const res = await app.post(path, body);
        assert.equal(res.status, 413, JSON.stringify(res.body));
        assert.equal(res.body.code, 'TOO_LARGE');
        assert.match(res.body.detail, message);
      }
      assert.equal((await app.post('/v1/chunk/token', { text: ['a', 'b', 'c'] })).status, 200, 'at the limit is fine');
    } finally {
      await app.close();
    }
  });
});

describe('request timeout', () => {
  test('a request over the deadline gets 504, and its pooled work is stopped', async () => {
    const app = await startApp({ 'request-timeout-ms': '1500', 'plugins-dir': busy, workers: '1' });
    const markers = markerDir(busy);
    try {
      await (app.booted.deps.executor as WorkerPool).ready;
      const res = await app.post('/v1/chunk/busy', { text: BIG_TEXT, marker_dir: markers });
      assert.equal(res.status, 504);
      assert.equal(res.body.code, 'TIMEOUT');
      assert.match(res.body.detail, /longer than 1\.5 s and was abandoned.*--request-timeout-ms/);
      assert.ok(existsSync(join(markers, 'started')), 'the job had started');
      writeFileSync(join(markers, 'release'), '');
      // Had the worker survived, it would see the release file and write `finished` within milliseconds.
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(existsSync(join(markers, 'finished')), false, 'the abandoned job kept running');
      // The pool replaces the killed worker; called directly, so a slow cold start cannot hit the 1.5 s deadline.
      const { registry, executor } = app.booted.deps;
      const [chunks] = await chunkEach(
        registry.get('chunker', 'token'),
        { tokenizer: 'character', chunk_size: 1000, chunk_overlap: 0 },
        [BIG_TEXT],
        'codepoint',
        { executor },
      );
      assert.equal(chunks!.map((c) => c.text).join(''), BIG_TEXT, 'the pool replaced the worker');
      assert.equal((await app.post('/v1/chunk/token', { text: BIG_TEXT, chunk_size: 1000 })).status, 200, 'clients are served by the pool again');
    } finally {
      writeFileSync(join(markers, 'release'), '');
      await app.close();
    }
  });
});
