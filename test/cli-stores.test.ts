/**
 * `chunkd ingest DIR --pipeline P` and `chunkd search STORE …` (cli/ingest.ts, cli/search.ts) on
 * the default store of a data directory (embedded LanceDB): run as a user runs them, in a child
 * process, and checked by counting rows and reading hits.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = ['--import', 'tsx', join(ROOT, 'cli/index.ts')];

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
