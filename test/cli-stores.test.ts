/**
 * `chunkd ingest DIR --pipeline P` and `chunkd search STORE …` (cli/ingest.ts, cli/search.ts) on
 * the default store of a data directory (embedded LanceDB): run as a user runs them, in a child
 * process, and checked by counting rows and reading hits.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CLI } from './helpers/cli.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

let dir: string;
let env: NodeJS.ProcessEnv;
const run = (args: string[]) =>
  spawnSync(process.execPath, [...CLI, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CHUNKD_LOG_LEVEL: '', ...env } });
const summary = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as { files: number; written: number; skipped: number; failed: number };
const hits = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { text: string; start_index: number; end_index: number; metadata: { document: string }; score: number });

const DOCS: Record<string, string> = {
  'rivers.txt': 'The river flooded the valley. Farmers moved their herds uphill.',
  'bees/honey.md': 'Bees visit the orchard in April. The honey harvest comes in late summer.',
  'bees/wax.txt': 'Beeswax candles burn slowly and smell of honey.',
};

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'chunkd-ingest-'));
  env = { CHUNKD_DATA_DIR: join(dir, 'data') };
  for (const [name, text] of Object.entries(DOCS)) {
    mkdirSync(join(dir, 'corpus', name, '..'), { recursive: true });
    writeFileSync(join(dir, 'corpus', name), text);
  }
  writeFileSync(
    join(dir, 'pipeline.json'),
    JSON.stringify({
      steps: [
        { type: 'chunk', chunker: 'sentence', config: { chunk_size: 12 } },
        { type: 'write', store: 'default', config: { collection: 'corpus' } },
      ],
    }),
  );
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('chunkd ingest and search', () => {
  test('ingest writes every file, each under its path; search finds them with offsets into the file', () => {
    const res = run(['ingest', join(dir, 'corpus'), '--pipeline', join(dir, 'pipeline.json')]);
    assert.equal(res.status, 0, res.stderr);
    assert.deepEqual(summary(res.stdout), { files: 3, written: 3, skipped: 0, failed: 0, store: 'default', collection: 'corpus' });
    // by vector: every chunk is a hit, the river's too
    const found = run(['search', 'default', '--collection', 'corpus', '--query', 'honey harvest', '--k', '10', '--mode', 'vector']);
    assert.equal(found.status, 0, found.stderr);
    assert.equal(found.stderr, 'mode: vector\n');
    const list = hits(found.stdout);
    assert.deepEqual(new Set(list.map((h) => h.metadata.document)), new Set(Object.keys(DOCS)));
    for (const h of list) assert.equal(Array.from(DOCS[h.metadata.document]!).slice(h.start_index, h.end_index).join(''), h.text);
    assert.ok(list.every((h, i) => i === 0 || list[i - 1]!.score >= h.score));
  });

  test('a second run skips what is unchanged and rewrites a changed file: every document once', () => {
    writeFileSync(join(dir, 'corpus', 'rivers.txt'), 'The river is calm now. Herds graze by the water.');
    const res = run(['ingest', join(dir, 'corpus'), '--pipeline', join(dir, 'pipeline.json')]);
    assert.equal(res.status, 0, res.stderr);
    assert.deepEqual(summary(res.stdout), { files: 3, written: 1, skipped: 2, failed: 0, store: 'default', collection: 'corpus' });
    const rivers = hits(run(['search', 'default', '--collection', 'corpus', '--query', 'river', '--k', '100', '--document', 'rivers.txt']).stdout);
    assert.ok(rivers.length > 0);
    assert.ok(
      rivers.every((h) => !h.text.includes('flooded')),
      'the old chunks were replaced',
    );
    const all = hits(run(['search', 'default', '--collection', 'corpus', '--query', 'the', '--k', '1000']).stdout);
    const ids = all.map((h) => `${h.metadata.document}:${h.start_index}`);
    assert.equal(new Set(ids).size, ids.length, 'no chunk stored twice');
  });

  test("search without --mode runs the built-in model's default, text, and says so; --mode names another; a bad one exits 2 naming the modes", () => {
    const plain = run(['search', 'default', '--collection', 'corpus', '--query', 'beeswax candles', '--k', '3']);
    assert.equal(plain.status, 0, plain.stderr);
    assert.equal(plain.stderr, 'mode: text\n');
    assert.equal(hits(plain.stdout)[0]!.metadata.document, 'bees/wax.txt');
    const hybrid = run(['search', 'default', '--collection', 'corpus', '--query', 'beeswax candles', '--k', '3', '--mode', 'hybrid']);
    assert.equal(hybrid.status, 0, hybrid.stderr);
    assert.equal(hybrid.stderr, 'mode: hybrid\n');
    assert.equal(hits(hybrid.stdout)[0]!.metadata.document, 'bees/wax.txt');
    const bad = run(['search', 'default', '--collection', 'corpus', '--query', 'x', '--mode', 'keyword']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /mode must be one of vector, text, hybrid.*serves: vector, text, hybrid/);
  });

  test('a file over a limit is skipped by its path, naming the setting; the rest is written, the run exits 1 with a summary', () => {
    const corpus = join(dir, 'limits');
    mkdirSync(corpus);
    writeFileSync(join(corpus, 'a.txt'), 'The first small file.');
    writeFileSync(join(corpus, 'big.txt'), 'word '.repeat(400));
    writeFileSync(join(corpus, 'c.txt'), 'The last small file.');
    // Larger than V8's longest string and than a Buffer read whole: refused by its size, never read (a sparse file takes no disk).
    const huge = join(corpus, 'huge.bin');
    writeFileSync(huge, '');
    truncateSync(huge, 3 * 1024 ** 3);
    const pipeline = join(dir, 'limits.json');
    writeFileSync(
      pipeline,
      JSON.stringify({
        steps: [
          { type: 'chunk', chunker: 'sentence', config: { chunk_size: 12 } },
          { type: 'write', store: 'default', config: { collection: 'limits' } },
        ],
      }),
    );
    const small = spawnSync(process.execPath, [...CLI, 'ingest', corpus, '--pipeline', pipeline], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, CHUNKD_LOG_LEVEL: '', ...env, CHUNKD_MAX_FILE_BYTES: '1000' },
    });
    assert.equal(small.status, 1, small.stderr);
    assert.deepEqual(summary(small.stdout), { files: 4, written: 2, skipped: 0, failed: 2, store: 'default', collection: 'limits' });
    assert.match(small.stderr, /^big\.txt: the file is 2,000 bytes, over the 1,000 .*CHUNKD_MAX_FILE_BYTES/m);
    assert.match(small.stderr, /^huge\.bin: the file is 3,221,225,472 bytes, over the 1,000 .*CHUNKD_MAX_FILE_BYTES/m);
    assert.match(small.stderr, /2 of 4 files not written/);
    const found = hits(run(['search', 'default', '--collection', 'limits', '--query', 'small file', '--k', '10']).stdout);
    assert.deepEqual([...new Set(found.map((h) => h.metadata.document))].sort(), ['a.txt', 'c.txt']);
    // With the default limit (32 MiB) the 3 GiB file is still refused by its size, and the others were written before.
    const defaults = run(['ingest', corpus, '--pipeline', pipeline]);
    assert.equal(defaults.status, 1, defaults.stderr);
    assert.match(defaults.stderr, /^huge\.bin: the file is 3,221,225,472 bytes, over the 33,554,432 .*CHUNKD_MAX_FILE_BYTES/m);
    assert.deepEqual(summary(defaults.stdout), { files: 4, written: 1, skipped: 2, failed: 1, store: 'default', collection: 'limits' });
  });

  test('search with a bad --embedding or --k: exit 2 naming it, never an empty answer', () => {
    for (const [flag, value, message] of [
      ['--embedding', '"abc"', /--embedding must be a JSON list of numbers/],
      ['--embedding', '[1, "x"]', /--embedding must be a JSON list of numbers/],
      ['--embedding', '[]', /--embedding must be a JSON list of numbers/],
      ['--embedding', 'not json', /--embedding must be a JSON list of numbers/],
      ['--embedding', '[0, 0, 0]', /--embedding is all zeros/],
      ['--embedding', '[1e999, 1]', /--embedding holds Infinity at 0/],
      ['--k', '0', /--k must be a whole number of at least 1/],
    ] as const) {
      const r = run(['search', 'default', '--collection', 'corpus', ...(flag === '--k' ? ['--query', 'x'] : []), flag, value]);
      assert.equal(r.status, 2, `${flag} ${value}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.equal(r.stdout, '');
    }
  });

  test('bad input: exit 2 with what to do', () => {
    const noWrite = join(dir, 'nowrite.json');
    writeFileSync(noWrite, JSON.stringify({ steps: [{ type: 'chunk', chunker: 'token', config: {} }] }));
    const a = run(['ingest', join(dir, 'corpus'), '--pipeline', noWrite]);
    assert.equal(a.status, 2);
    assert.match(a.stderr, /does not end in a write step/);
    const b = run(['search', 'nope', '--collection', 'corpus', '--query', 'x']);
    assert.equal(b.status, 2);
    assert.match(b.stderr, /Unknown store 'nope'.*default/);
    const c = run(['search', 'default', '--colection', 'corpus', '--query', 'x']);
    assert.equal(c.status, 2);
    assert.match(c.stderr, /Did you mean '--collection'\?/);
  });
});
