/**
 * The shipped retrieval presets (presets/retrieval/*.json) stay loadable: `chunkd eval --candidate
 * FILE` takes each as it is and gives figures that obey the metrics' bounds, and POST /v1/pipelines
 * stores each as it is, whose execute gives the chunks the evaluation indexed, at exact offsets.
 * The corpus is a small fixture (test/fixtures/presets), not the benchmark's data.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { presetFiles } from '../scripts/presets-table.js';
import { startApp, type TestApp } from './helpers/app.js';
import { CLI } from './helpers/cli.js';

const run = promisify(execFile);
const FIXTURE = fileURLToPath(new URL('./fixtures/presets', import.meta.url));
const files = presetFiles().map((p) => p.path);
const TEXT = readFileSync(join(FIXTURE, 'corpora', 'lighthouses.md'), 'utf8');

describe('retrieval presets', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(() => app.close());

  test('there are one to eight, each {name, description, steps}', () => {
    assert.ok(files.length >= 1 && files.length <= 8, `${files.length} presets`);
    for (const f of files) assert.deepEqual(Object.keys(JSON.parse(readFileSync(f, 'utf8'))).sort(), ['description', 'name', 'steps'], f);
  });

  test('chunkd eval runs each file; POST /v1/pipelines stores it and its chunks are the ones evaluated', async () => {
    const args = [
      ...CLI,
      'eval',
      '--corpora',
      join(FIXTURE, 'corpora'),
      '--questions',
      join(FIXTURE, 'questions.csv'),
      '--k',
      '1,5',
      '--format',
      'json',
      ...files.flatMap((f) => ['--candidate', f]),
    ];
    const { stdout } = await run(process.execPath, args);
    const { results } = JSON.parse(stdout) as {
      results: {
        candidate: string;
        k: number;
        recall: { mean: number };
        precision: { mean: number };
        iou: { mean: number };
        precision_omega: { mean: number };
        chunks: number;
      }[];
    };
    assert.equal(results.length, files.length * 2);
    for (const f of files) {
      const [k1, k5] = [1, 5].map((k) => results.find((r) => r.candidate === f && r.k === k)!);
      assert.ok(k1 && k5, `${f}: no result`);
      for (const r of [k1, k5]) {
        for (const m of ['recall', 'precision', 'iou', 'precision_omega'] as const)
          assert.ok(r[m].mean >= 0 && r[m].mean <= 100, `${f} k ${r.k} ${m} ${r[m].mean}`);
        // IoU's denominator holds both the retrieved and the reference characters.
        assert.ok(r.iou.mean <= Math.min(r.recall.mean, r.precision.mean) + 1e-9, `${f} k ${r.k}: IoU ${r.iou.mean}`);
      }
      assert.ok(k5.recall.mean >= k1.recall.mean && k1.recall.mean > 0, `${f}: recall k 1 ${k1.recall.mean}, k 5 ${k5.recall.mean}`);

      const preset = JSON.parse(readFileSync(f, 'utf8'));
      const created = await app.post('/v1/pipelines', preset);
      assert.equal(created.status, 201, `${f}: ${JSON.stringify(created.body)}`);
      const executed = await app.post(`/v1/pipelines/${created.body.id}/execute`, { text: TEXT });
      assert.equal(executed.status, 200, `${f}: ${JSON.stringify(executed.body)}`);
      const chunks = executed.body as { text: string; start_index: number; end_index: number }[];
      assert.equal(chunks.length, k5.chunks, `${f}: the pipeline's chunks are the ones evaluated`);
      const points = [...TEXT];
      for (const c of chunks)
        assert.equal(points.slice(c.start_index, c.end_index).join(''), c.text, `${f}: offsets of ${JSON.stringify(c.text.slice(0, 30))}`);
    }
  });
});
