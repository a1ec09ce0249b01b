/**
 * Tokenizer and model names are not a file-system API (kernel/model-files.ts): only regular files
 * under the model roots are read, each under one canonical path, within a size cap; every refusal
 * reads the same whatever exists on disk; loaded tokenizers and models are cached within bounds.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { BoundedCache } from '../kernel/bounded-cache.js';
import { isChunkdError } from '../kernel/errors.js';
import { MAX_JSON_BYTES } from '../kernel/model-files.js';
import { FILE_TOKENIZERS, fileTokenizerCache, loadTokenizer } from '../kernel/tokenizers/index.js';
import { embedderCache, loadEmbedder } from '../kernel/embeddings/embedder.js';
import { MODELS_ROOT, tempDir, wordLevelJson, writeModel2Vec, writeTokenizer } from './helpers/tiny-models.js';
import { startApp } from './helpers/app.js';

/** Outside every root: a valid tokenizer and a valid model the server must still refuse. */
const OUTSIDE = mkdtempSync(join(tmpdir(), 'chunkd-outside-'));
after(() => rmSync(OUTSIDE, { recursive: true, force: true }));
const outsideTokenizer = writeTokenizer(wordLevelJson(['hello']), OUTSIDE);

/** The refusal with the name taken out: what must not vary with the file system. */
async function refusalText(load: (name: string) => Promise<unknown>, name: string): Promise<string> {
  try {
    await load(name);
  } catch (e) {
    assert.ok(isChunkdError(e), `${name}: ${String(e)}`);
    assert.equal(e.status, 400, name);
    return String(e.detail).replace(name.length > 200 ? `${name.slice(0, 200)}…` : name, '<name>');
  }
  assert.fail(`${name} was loaded`);
}

function fifo(dir: string): string | undefined {
  const path = join(dir, 'tokenizer.json');
  try {
    execFileSync('mkfifo', [path]);
    return path;
  } catch {
    return undefined; // no mkfifo on this system
  }
}

describe('tokenizer names resolve only to regular files under the model roots', () => {
  const inRoot = writeTokenizer(wordLevelJson(['hello', 'world']));
  const dir = join(inRoot, '..');

  test('a tokenizer.json under a root loads, by absolute path, by directory, and by a path relative to the root', async () => {
    const rel = basename(dir);
    for (const name of [inRoot, dir, rel, `${rel}/tokenizer.json`]) assert.equal((await loadTokenizer(name)).count('hello world'), 2, name);
  });

  test('/dev/zero, a FIFO, a directory, a symlink out of the root, `..`, a file over the cap: one refusal, identical', async () => {
    const notJson = join(tempDir(), 'tokenizer.json');
    writeFileSync(notJson, 'this is { not json');
    const noModel = join(tempDir(), 'tokenizer.json');
    writeFileSync(noModel, '{"version": "1.0"}');
    const escape = tempDir();
    symlinkSync(outsideTokenizer, join(escape, 'tokenizer.json'));
    const zeroLink = tempDir();
    symlinkSync('/dev/zero', join(zeroLink, 'tokenizer.json'));
    const big = join(tempDir(), 'tokenizer.json');
    writeFileSync(big, '{}');
    truncateSync(big, MAX_JSON_BYTES + 1); // sparse: costs no disk
    const names = [
      '/dev/zero',
      '/etc/passwd',
      '/nonexistent/tokenizer.json',
      join(MODELS_ROOT, 'missing', 'tokenizer.json'),
      'missing/tokenizer.json',
      outsideTokenizer, // exists, valid, outside the roots
      OUTSIDE, // a directory holding one, outside the roots
      tempDir(), // a directory under a root without tokenizer.json
      notJson,
      noModel,
      escape, // a symlink under a root to a file outside
      zeroLink,
      big,
      `${dir}/../../${basename(OUTSIDE)}/tokenizer.json`, // `..` out of the root
      `../${basename(OUTSIDE)}/tokenizer.json`, // relative, climbing out of every root
      'not\0a/path.json',
      'x/'.repeat(3000),
    ];
    const pipe = fifo(tempDir());
    if (pipe) names.push(pipe, join(pipe, '..'));
    const texts = new Set<string>();
    for (const name of names) texts.add(await refusalText(loadTokenizer, name));
    assert.equal(texts.size, 1, [...texts].join('\n'));
  });

  test('a symlink that stays inside the roots is followed, and cached under its target', async () => {
    const link = tempDir();
    symlinkSync(inRoot, join(link, 'tokenizer.json'));
    assert.equal(await loadTokenizer(link), await loadTokenizer(inRoot));
  });

  test('40 spellings of one directory load one tokenizer', async () => {
    const fresh = writeTokenizer(wordLevelJson(['forty']));
    const d = join(fresh, '..');
    const rel = basename(d);
    const before = fileTokenizerCache().size;
    const spellings = new Set<string>();
    for (let k = 0; k < 10; k++) {
      spellings.add(d + '/'.repeat(k + 1));
      spellings.add(`${d}/${'./'.repeat(k + 1)}`);
      spellings.add(d.replace(/\//g, '/'.repeat(k + 2)));
      spellings.add(`${'./'.repeat(k)}${rel}/${'x/../'.repeat(k)}tokenizer.json`); // relative to the root
    }
    assert.equal(spellings.size, 40);
    const loaded = await Promise.all([...spellings].map((s) => loadTokenizer(s)));
    assert.ok(loaded.every((t) => t === loaded[0]));
    assert.equal(fileTokenizerCache().size, before + 1);
  });

  test('the cache of file tokenizers is bounded', async () => {
    for (let k = 0; k < FILE_TOKENIZERS.maxEntries + 4; k++) await loadTokenizer(writeTokenizer(wordLevelJson([`w${k}`])));
    const { size, bytes } = fileTokenizerCache();
    assert.equal(size, FILE_TOKENIZERS.maxEntries);
    assert.ok(bytes > 0 && bytes <= FILE_TOKENIZERS.maxBytes);
  });

  test('over HTTP, "tokenizer": "/dev/zero" is a 400 with the refusal', async () => {
    const app = await startApp();
    try {
      const r = await app.post('/v1/chunk/token', { text: 'hello world', tokenizer: '/dev/zero' });
      assert.equal(r.status, 400);
      assert.match(JSON.stringify(r.body), /not a known name nor a tokenizer\.json under the configured model roots/);
    } finally {
      await app.close();
    }
  });
});

describe('embedding model names resolve only to directories under the model roots', () => {
  test('missing, outside the roots, a file, /dev/zero, weights linked out of the root: one refusal, identical', async () => {
    const model = await writeModel2Vec(['alpha'], [[1, 0]]);
    const outsideModel = join(OUTSIDE, 'model');
    cpSync(model, outsideModel, { recursive: true });
    const escape = tempDir();
    writeTokenizer(wordLevelJson(['alpha']), escape);
    symlinkSync(join(outsideModel, 'model.safetensors'), join(escape, 'model.safetensors'));
    const zero = tempDir();
    writeTokenizer(wordLevelJson(['alpha']), zero);
    symlinkSync('/dev/zero', join(zero, 'model.safetensors'));
    const linkOut = tempDir();
    symlinkSync(outsideModel, join(linkOut, 'm'));
    const names = [
      '/dev/zero',
      '/etc',
      '/nonexistent/model-dir',
      outsideModel,
      join(model, 'model.safetensors'),
      tempDir(),
      escape,
      zero,
      join(linkOut, 'm'),
      `${model}/../../../${basename(OUTSIDE)}/model`,
    ];
    const texts = new Set<string>();
    for (const name of names) texts.add(await refusalText(loadEmbedder, name));
    assert.equal(texts.size, 1, [...texts].join('\n'));
    assert.equal((await loadEmbedder(model)).dimension, 2);
  });

  test('40 spellings of one model directory load one model', async () => {
    const model = await writeModel2Vec(['beta'], [[0, 1]]);
    const rel = basename(model);
    const before = embedderCache().size;
    const spellings = new Set<string>();
    for (let k = 0; k < 10; k++) {
      spellings.add(model + '/'.repeat(k + 1));
      spellings.add(`${model}/${'./'.repeat(k + 1)}`);
      spellings.add(model.replace(/\//g, '/'.repeat(k + 2)));
      spellings.add(`${'./'.repeat(k)}${rel}/${'y/../'.repeat(k + 1)}`); // relative to the root
    }
    assert.equal(spellings.size, 40);
    const loaded = await Promise.all([...spellings].map((s) => loadEmbedder(s)));
    assert.ok(loaded.every((e) => e === loaded[0]));
    assert.equal(embedderCache().size, before + 1);
  });
});

describe('the bounded cache', () => {
  test('keeps the most recently used entries within its count and byte budgets', () => {
    const c = new BoundedCache<string>(3, 100);
    c.set('a', 'A', 10);
    c.set('b', 'B', 10);
    c.set('c', 'C', 10);
    assert.equal(c.get('a'), 'A'); // a is now the most recent
    c.set('d', 'D', 10); // evicts b, the least recent
    assert.equal(c.get('b'), undefined);
    assert.deepEqual([c.size, c.bytes], [3, 30]);
    c.set('e', 'E', 80); // over 100 bytes: the oldest go until it fits
    assert.ok(c.bytes <= 100 && c.get('e') === 'E');
    c.set('huge', 'H', 101); // heavier than the whole budget: not kept
    assert.equal(c.get('huge'), undefined);
    c.weigh('e', 5);
    assert.ok(c.bytes <= 100);
  });
});
