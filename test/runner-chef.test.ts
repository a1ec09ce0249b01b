/**
 * A chef is a runner step (kernel/engine/runner.ts): processed where the runner places it, its document
 * serialised there under the output caps, its structure capped per kind (maxStructureSpans, the
 * rest counted in metadata.dropped_spans). Judged by counts: pool tasks, extraction starts, bytes.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { DEFAULT_POOL, closeExtractPools, WorkerPool, inline } from '../kernel/engine/index.js';
import { extractPool } from '../kernel/engine/placement/extract-pool.js';
import { discover } from '../kernel/discovery.js';
import { Runner, type Recipe } from '../kernel/engine/index.js';

const registry = await discover();
const markdown = registry.get('chef', 'markdown');
const text = registry.get('chef', 'text');
const recursive = registry.get('chunker', 'recursive');
const limits = { maxOutputBytes: 16_000_000, maxDocumentOutputBytes: 1_000_000, maxChunks: 100_000 };
const steps = (...plugins: (typeof markdown)[]) => plugins.map((plugin) => ({ plugin, config: plugin.validateConfig({}) }));
const recipe = (...plugins: (typeof markdown)[]): Recipe => ({ steps: steps(...plugins), unit: 'codepoint', returnType: 'chunks' });
const json = (parts: Uint8Array[]) => JSON.parse(Buffer.concat(parts).toString('utf8'));

describe('a chef as a runner step', () => {
  const pool = new WorkerPool({ threads: 2 });
  const extract = { ...DEFAULT_POOL, threads: 1, maxMs: 60_000 };
  after(async () => {
    await pool.close();
    await closeExtractPools();
  });

  test('a process step answers the document, with offsets in the unit; a chunker after it gets its structure', async () => {
    const runner = new Runner(inline, limits);
    const md = '# Tö 🙂\n\npara\n\n## B\n\ntext\n';
    const doc = json(await runner.answer(recipe(markdown), [md], { list: false }));
    assert.equal(doc.text, md);
    assert.deepEqual(
      doc.structure.headings.map((h: { text: string; start_index: number; end_index: number }) => [h.text, [...md].slice(h.start_index, h.end_index).join('')]),
      [
        ['Tö 🙂', '# Tö 🙂'],
        ['B', '## B'],
      ],
    );
    const chunks = json(await runner.answer(recipe(markdown, recursive), [md], { list: false }));
    assert.ok(chunks.length > 0);
    for (const c of chunks) assert.equal([...md].slice(c.start_index, c.end_index).join(''), c.text);
    assert.deepEqual(chunks[0].metadata.headings, ['Tö 🙂'], "the heading path from the chef's structure");
  });

  test('past maxStructureSpans a kind is cut and counted, the text still answered', async () => {
    const runner = new Runner(inline, { ...limits, chef: { limits: { maxStructureSpans: 10 } } });
    const md = '#\n'.repeat(25) + '![a](b)\n'.repeat(3);
    const doc = json(await runner.answer(recipe(markdown), [md], { list: false }));
    assert.equal(doc.text, md);
    assert.equal(doc.structure.headings.length, 10);
    assert.equal(doc.structure.images.length, 3);
    assert.deepEqual(doc.metadata.dropped_spans, { headings: 15 });
  });

  test('4 MB of "#\\n" runs in the extraction pool: its document is capped and serialised there, under the output cap', async () => {
    const runner = new Runner(pool, { ...limits, chef: { pool: extract } });
    const before = { ...extractPool(extract).started };
    const runs = pool.tasksByKind.run;
    const parts = await runner.answer(recipe(markdown), ['#\n'.repeat(2_000_000)], { list: false });
    const bytes = parts.reduce((n, p) => n + p.length, 0);
    assert.ok(bytes <= limits.maxOutputBytes, `${bytes} bytes`);
    const doc = json(parts);
    assert.equal(doc.structure.headings.length, 100_000, 'the default cap');
    assert.deepEqual(doc.metadata.dropped_spans, { headings: 1_900_000 });
    const after = extractPool(extract).started;
    assert.equal(after.any + after.small - before.any - before.small, 1, 'one extraction task ran it');
    assert.equal(pool.tasksByKind.run, runs, 'not the main pool');
  });

  test('a document over the cap is a 413 naming --max-output-bytes, made where it ran', async () => {
    const runner = new Runner(pool, { ...limits, maxOutputBytes: 3_000_000, chef: { pool: extract } });
    await assert.rejects(runner.answer(recipe(markdown), ['#\n'.repeat(2_000_000)], { list: false }), (e: Error) => /--max-output-bytes/.test(e.message));
    const each = new Runner(pool, { ...limits, chef: { pool: extract } });
    const results: unknown[] = [];
    await each.each(recipe(markdown), ['#\n'.repeat(2_000_000), '# ok\n'], (i, r) => void (results[i] = r));
    assert.match(String((results[0] as { error: Error }).error.message), /--max-document-output-bytes/);
    assert.ok('bytes' in (results[1] as object));
  });

  test('a chef not marked offLoop runs in the main pool by cost; a process-then-chunk recipe comes back as bytes', async () => {
    const runner = new Runner(pool, { ...limits, chef: { pool: extract } });
    const runs = pool.tasksByKind.run;
    const big = 'word '.repeat(100_000);
    const chunks = json(await runner.answer(recipe(text, recursive), [big], { list: false }));
    assert.ok(chunks.length > 1);
    assert.equal(pool.tasksByKind.run, runs + 1);
  });

  test('a file given as bytes is read by the chef, in the extraction pool for an offLoop chef', async () => {
    const runner = new Runner(pool, { ...limits, chef: { pool: extract } });
    const before = extractPool(extract).started.any + extractPool(extract).started.small;
    const file = new Uint8Array(Buffer.from('# Title\n\nbody\n'));
    const doc = json(await runner.answer(recipe(markdown), [{ file, filename: 'a.md' }], { list: false }));
    assert.deepEqual(
      doc.structure.headings.map((h: { text: string }) => h.text),
      ['Title'],
    );
    assert.equal(extractPool(extract).started.any + extractPool(extract).started.small, before + 1);
  });
});
