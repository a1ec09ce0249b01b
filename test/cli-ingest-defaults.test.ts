/**
 * A pipeline-less `chunkd ingest DIR` on a folder of mixed files (cli/ingest-defaults.ts): each file
 * read by the chef its type needs ("chef": "auto"), written to the default store under a collection
 * named after the folder with its path as name and the sidecar's metadata, a failing file named and
 * skipped; then `chunkd search "question"` with no store or collection named, and --filter.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { connect } from '@lancedb/lancedb';
import { CLI } from './helpers/cli.js';
import { collectionOf, DEFAULT_CHUNK_STEP } from '../cli/ingest-defaults.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FILES = join(ROOT, 'test/fixtures/files');

let dir: string;
let env: NodeJS.ProcessEnv;
const run = (args: string[]) =>
  spawnSync(process.execPath, [...CLI, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CHUNKD_LOG_LEVEL: '', ...env } });
type Hit = { text: string; metadata: Record<string, unknown> & { document: string; name: string }; score: number };
const hits = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Hit);

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'chunkd-folder-'));
  env = { CHUNKD_DATA_DIR: join(dir, 'data') };
  const docs = join(dir, 'Team Docs');
  mkdirSync(join(docs, 'manuals'), { recursive: true });
  copyFileSync(join(FILES, 'sample.pdf'), join(docs, 'manuals', 'sample.pdf'));
  copyFileSync(join(FILES, 'sample.docx'), join(docs, 'sample.docx'));
  writeFileSync(
    join(docs, 'page.html'),
    '<html><head><style>body { color: red }</style><script>var tracker = 1;</script></head><body><h1>Lighthouses</h1><p>The keeper trimmed the lamp wick every night.</p></body></html>',
  );
  writeFileSync(join(docs, 'bees.md'), '# Bees\n\nBees visit the orchard in April. The honey harvest comes in late summer.\n');
  writeFileSync(join(docs, 'rivers.csv'), 'city,river\nParis,Seine\nLondon,Thames\n');
  writeFileSync(join(docs, 'blob.bin'), Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x02]));
  writeFileSync(join(dir, 'meta.json'), JSON.stringify({ '*': { team: 'docs' }, 'bees.md': { lang: 'en' }, 'manuals/sample.pdf': { lang: 'fr' } }));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('chunkd ingest DIR with defaults, then chunkd search', () => {
  test('the default chunk step is the default retrieval preset; a collection is the folder name made valid', () => {
    const preset = JSON.parse(readFileSync(join(ROOT, 'presets/retrieval/default-passage-400.json'), 'utf8')) as { steps: unknown[] };
    assert.deepEqual(preset.steps, [DEFAULT_CHUNK_STEP]);
    assert.equal(collectionOf('/x/Team Docs'), 'Team-Docs');
    assert.equal(collectionOf('/x/__'), 'docs');
  });

  test('every type read by its chef, no HTML tag stored, a failing file named and skipped, the others written', () => {
    const res = run(['ingest', join(dir, 'Team Docs'), '--metadata', join(dir, 'meta.json')]);
    assert.equal(res.status, 1, res.stderr);
    const summary = JSON.parse(res.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    assert.deepEqual(summary, { files: 6, written: 5, skipped: 0, failed: 1, store: 'default', collection: 'Team-Docs' });
    assert.match(res.stderr, /^blob\.bin: Cannot read text/m);
    assert.match(res.stderr, /1 of 6 files not written/);
    const all = hits(run(['search', '--collection', 'Team-Docs', '--query', 'the keeper river bees paragraph document', '--k', '100']).stdout);
    assert.deepEqual([...new Set(all.map((h) => h.metadata.name))].sort(), ['bees.md', 'manuals/sample.pdf', 'page.html', 'rivers.csv', 'sample.docx']);
    for (const h of all) {
      assert.doesNotMatch(h.text, /<\/?[a-z][^>]*>|color: red|tracker/, `${h.metadata.name}: no markup stored`);
      assert.equal(h.metadata.document, h.metadata.name, 'a document is named by its path under the folder');
      assert.equal(h.metadata.team, 'docs', 'the sidecar’s "*" metadata on every file');
    }
    assert.ok(
      all.some((h) => h.metadata.name === 'rivers.csv' && h.text.includes('| Paris | Seine |')),
      'the CSV as a table',
    );
  });

  test('a phrase only the PDF holds finds a PDF chunk, named by its path; search "question" needs no store or collection', () => {
    const res = run(['search', 'the extractor has to join lines that belong together', '--k', '1']);
    assert.equal(res.status, 0, res.stderr);
    const [top] = hits(res.stdout);
    assert.equal(top!.metadata.name, 'manuals/sample.pdf');
    assert.equal(top!.metadata.lang, 'fr');
    assert.match(top!.text, /join lines that belong together/);
  });

  test('--filter keeps only the chunks whose metadata holds; a filter injection is a literal', () => {
    const en = hits(run(['search', 'bees honey', '--filter', '{"lang": "en"}', '--k', '50']).stdout);
    assert.ok(en.length > 0 && en.every((h) => h.metadata.name === 'bees.md'));
    // by vector: every chunk is a hit, so what the filter keeps is all that decides (a text search finds 'paragraph' in one file only)
    const both = hits(run(['search', 'paragraph', '--mode', 'vector', '--filter', '{"lang": {"in": ["en", "fr"]}}', '--k', '50']).stdout);
    assert.deepEqual([...new Set(both.map((h) => h.metadata.name))].sort(), ['bees.md', 'manuals/sample.pdf']);
    const injected = run(['search', 'bees', '--filter', `{"lang": "en' OR '1'='1"}`, '--k', '50']);
    assert.equal(injected.status, 0, injected.stderr);
    assert.deepEqual(hits(injected.stdout), []);
    const bad = run(['search', 'bees', '--filter', '{"lang": {"like": "%"}}']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /filter/);
  });

  test('a second run skips every file written; a sidecar key of chunkd’s own is refused by name', () => {
    const res = run(['ingest', join(dir, 'Team Docs'), '--metadata', join(dir, 'meta.json')]);
    assert.equal(res.status, 1);
    assert.deepEqual(JSON.parse(res.stdout.trim()), { files: 6, written: 0, skipped: 5, failed: 1, store: 'default', collection: 'Team-Docs' });
    writeFileSync(join(dir, 'bad-meta.json'), JSON.stringify({ '*': { name: 'mine' } }));
    const bad = run(['ingest', join(dir, 'Team Docs'), '--metadata', join(dir, 'bad-meta.json')]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /'name' is a key chunkd writes itself/);
  });

  test('search in an empty data directory says which directory it read', () => {
    const res = spawnSync(process.execPath, [...CLI, 'search', 'anything'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, CHUNKD_LOG_LEVEL: '', CHUNKD_DATA_DIR: join(dir, 'empty-data') },
    });
    assert.equal(res.status, 2);
    assert.ok(res.stderr.includes(join(dir, 'empty-data')), res.stderr);
  });
});

test('ingest writes its files a batch at a time: far fewer commits to the table than files (before: one write per file)', async () => {
  const notes = join(dir, 'notes');
  mkdirSync(notes);
  for (let i = 0; i < 40; i++) writeFileSync(join(notes, `note-${String(i).padStart(2, '0')}.md`), `# Note ${i}\n\nThe lamp of note ${i} burns.\n`);
  const data = join(dir, 'batch-data');
  const res = spawnSync(process.execPath, [...CLI, 'ingest', notes], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, CHUNKD_LOG_LEVEL: '', CHUNKD_DATA_DIR: data, CHUNKD_JOB_BATCH_SIZE: '16' },
  });
  assert.equal(res.status, 0, res.stderr);
  assert.deepEqual(JSON.parse(res.stdout.trim()), { files: 40, written: 40, skipped: 0, failed: 0, store: 'default', collection: 'notes' });
  const db = await connect(join(data, 'stores', 'default'));
  const table = await db.openTable('notes');
  try {
    assert.equal(await table.countRows(), 40);
    // Three batches (16, 16, 8) and the upkeep at the end; a write per file would make at least 40 versions.
    const versions = (await table.listVersions()).length;
    assert.ok(versions < 20, `${versions} versions of the table`); // before: 45
  } finally {
    table.close();
    db.close();
  }
});
