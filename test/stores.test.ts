/** The stores service: connections from the settings, and the checks every store request shares (service/stores). */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Chunk } from '../kernel/chunk.js';
import { discover } from '../kernel/discovery.js';
import { EMBEDDED_MODEL } from '../kernel/fields.js';
import { readConnections, redact, StoresConfigError } from '../service/stores/connections.js';
import { refuseConnectionFields } from '../service/stores/refuse.js';
import { Stores } from '../service/stores/stores.js';
import { StoreSearch } from '../wire/stores.js';
import { memoryHandshakeDir } from './helpers/memory-handshake.js';

const plugins = memoryHandshakeDir();
const dir = mkdtempSync(join(tmpdir(), 'chunkd-stores-'));
after(() => [plugins, dir].forEach((d) => rmSync(d, { recursive: true, force: true })));
const registry = await discover([plugins]);
let spaces = 0;
const memory = (over: Record<string, unknown> = {}) => ({ name: 'mem', handshake: 'memory', space: `stores-test-${process.pid}-${spaces++}`, ...over });
const inline = (entries: unknown[]) => JSON.stringify(entries);
const settings = (stores: string, databaseUrl = '') => ({ stores, dataDir: dir, databaseUrl });

const chunk = (text: string, start: number, embedding: number[]): Chunk => ({
  id: 'x',
  text,
  start_index: start,
  end_index: start + text.length,
  token_count: 1,
  embedding,
});

describe('connections', () => {
  test('nothing set: one connection, default, a LanceDB store under the data directory', () => {
    const [only, ...rest] = readConnections('', dir, registry);
    assert.deepEqual(rest, []);
    assert.deepEqual([only!.name, only!.handshake, only!.config.path], ['default', 'lancedb', join(dir, 'stores', 'default')]);
    const stores = new Stores(registry, [only!], { replicaSet: false });
    assert.equal(stores.byHandshake('lancedb'), 'default');
    assert.deepEqual(stores.names(), ['default']);
  });

  test('a bad stores file stops start-up with a message naming the file and the entry', () => {
    const file = join(dir, 'stores.json');
    const cases: [unknown, RegExp][] = [
      [[memory(), { name: 'x', handshake: 'lancedbb', path: '/tmp/x' }], /stores\.json, entry 1 \("x"\): .*lancedb/],
      [[{ name: 'x', handshake: 'lancedb', path: '' }], /stores\.json, entry 0 \("x"\): .*path/],
      [[{ name: 'x', handshake: 'lancedb', path: '/a', pth: 1 }], /entry 0 \("x"\).*no setting "pth"/],
      [[memory(), memory()], /entry 1: a second connection is named 'mem'/],
      [[{ name: 'Bad Name', handshake: 'memory' }], /entry 0: "name" must be/],
      [{ name: 'x' }, /stores\.json must hold a non-empty JSON array/],
      [
        [memory({ token: 'env:CHUNKD_TEST_UNSET_VAR' })],
        /entry 0 \("mem"\), "token" is "env:CHUNKD_TEST_UNSET_VAR", but the environment variable CHUNKD_TEST_UNSET_VAR is not set/,
      ],
    ];
    for (const [entries, message] of cases) {
      writeFileSync(file, JSON.stringify(entries));
      assert.throws(
        () => readConnections(file, dir, registry, {}),
        (e: Error) => e instanceof StoresConfigError && message.test(e.message) && e.message.includes(file),
        JSON.stringify(entries),
      );
    }
    writeFileSync(file, '[{');
    assert.throws(() => readConnections(file, dir, registry), /stores\.json is not valid JSON/);
    assert.throws(() => readConnections(join(dir, 'missing.json'), dir, registry), /missing\.json cannot be read \(ENOENT\)/);
  });

  test('env: values are read from the environment; a secret is never listed, and is blanked from errors', async () => {
    const [conn] = readConnections(inline([memory({ token: 'env:MEM_TOKEN' })]), dir, registry, { MEM_TOKEN: 's3cr3t-token' });
    assert.equal(conn!.config.token, 's3cr3t-token');
    assert.deepEqual(conn!.secrets, ['s3cr3t-token']);
    const stores = new Stores(registry, [conn!], { replicaSet: false });
    assert.doesNotMatch(JSON.stringify(await stores.list()), /s3cr3t/);
    assert.throws(
      () => readConnections(inline([memory({ token: 12345678 })]), dir, registry, {}),
      (e: Error) => /token/.test(e.message),
    );
    assert.equal(redact('connect postgres://u:hunter22@db/x failed for hunter22', ['postgres://u:hunter22@db/x']), 'connect [secret] failed for [secret]');
  });
});

describe('Stores', () => {
  const open = (entries: unknown[], databaseUrl = '') => Stores.fromSettings(registry, settings(inline(entries), databaseUrl));

  test('write, list, search by embedding, filter, delete; re-writing leaves one copy', async () => {
    const stores = open([memory()]);
    const doc = [chunk('alpha', 0, [1, 0]), chunk('beta', 6, [0, 1])];
    await stores.write('mem', 'docs', 'd1', doc, 'm1');
    await stores.write('mem', 'docs', 'd1', doc, 'm1');
    await stores.write('mem', 'docs', 'd2', [chunk('gamma', 0, [1, 1])], 'm1');
    const [listed] = await stores.list();
    assert.deepEqual(listed, {
      name: 'mem',
      handshake: 'memory',
      local: false,
      modes: ['vector', 'text', 'hybrid'],
      collections: [{ name: 'docs', count: 3, model: 'm1', dimension: 2, default_mode: 'hybrid' }],
    });
    const hits = await stores.search('mem', { collection: 'docs', embedding: [0, 1], k: 2 });
    assert.deepEqual(
      hits.map((h) => [h.text, h.document]),
      [
        ['beta', 'd1'],
        ['gamma', 'd2'],
      ],
    );
    assert.equal(hits[0]!.id, (await stores.search('mem', { collection: 'docs', embedding: [0, 1], k: 1 }))[0]!.id, 'ids are deterministic');
    const filtered = await stores.search('mem', { collection: 'docs', embedding: [0, 1], k: 5, filter: { document: 'd2' } });
    assert.deepEqual(
      filtered.map((h) => h.text),
      ['gamma'],
    );
    assert.equal(await stores.deleteDocument('mem', 'docs', 'd1'), 2);
    assert.equal((await stores.collection('mem', 'docs'))!.count, 1);
    await stores.write('mem', 'docs', 'd2', [], 'm1');
    assert.equal((await stores.collection('mem', 'docs'))!.count, 0, 'a blank document removes its rows');
    await stores.close();
  });

  test('another model or dimension is a 409 naming both; a query vector of the wrong dimension a 422', async () => {
    const stores = open([memory()]);
    await stores.write('mem', 'docs', 'd1', [chunk('alpha', 0, [1, 0])], 'model-a');
    await assert.rejects(
      stores.write('mem', 'docs', 'd2', [chunk('b', 0, [1, 0])], 'model-b'),
      (e: { status: number; message: string }) => e.status === 409 && /model-a/.test(e.message) && /model-b/.test(e.message),
    );
    await assert.rejects(
      stores.write('mem', 'docs', 'd2', [chunk('b', 0, [1, 0, 0])], 'model-a'),
      (e: { status: number; message: string }) => e.status === 409 && /2 dimensions/.test(e.message) && /3/.test(e.message),
    );
    await assert.rejects(
      stores.search('mem', { collection: 'docs', embedding: [1, 0, 0], k: 1 }),
      (e: { status: number; message: string }) => e.status === 422 && /3 dimensions/.test(e.message) && /2 dimensions/.test(e.message),
    );
    await assert.rejects(
      stores.write('mem', 'docs', 'd3', [{ ...chunk('c', 0, []), embedding: undefined }], 'model-a'),
      (e: { status: number; message: string }) => e.status === 422 && /embeddings step/.test(e.message),
    );
  });

  test('unknown store: 404 with did-you-mean and the connections; unknown collection: 404; bad names and k: 422', async () => {
    const stores = open([memory(), memory({ name: 'docs' })]);
    await assert.rejects(
      stores.search('mam', { collection: 'docs', query: 'x', k: 1 }),
      (e: { status: number; message: string }) => e.status === 404 && /mem/.test(e.message) && /mem, docs/.test(e.message),
    );
    await assert.rejects(
      stores.search('mem', { collection: 'nope', query: 'x', k: 1 }),
      (e: { status: number; message: string }) => e.status === 404 && /no collection 'nope'/.test(e.message),
    );
    await assert.rejects(stores.deleteDocument('mem', 'nope', 'd'), (e: { status: number }) => e.status === 404);
    await assert.rejects(stores.search('mem', { collection: '../etc', query: 'x', k: 1 }), (e: { status: number }) => e.status === 422);
    await assert.rejects(
      stores.search('mem', { collection: 'docs', query: 'x', k: 0 }),
      (e: { status: number; message: string }) => e.status === 422 && /k must/.test(e.message),
    );
  });

  test('in a replica set a local store is listed local, named at start, and refused writes naming --stores', async () => {
    const logged: string[] = [];
    const stores = Stores.fromSettings(
      registry,
      settings(inline([{ name: 'lance', handshake: 'lancedb', path: join(dir, 'replica') }, memory()]), 'postgres://db/x'),
      { log: (_l, msg) => logged.push(msg) },
    );
    assert.equal(logged.length, 1);
    assert.match(logged[0]!, /'lance'.*--stores/);
    const listed = await stores.list();
    assert.deepEqual(
      listed.map((s) => [s.name, s.local]),
      [
        ['lance', true],
        ['mem', false],
      ],
    );
    await assert.rejects(
      stores.write('lance', 'docs', 'd', [chunk('a', 0, [1])], 'm'),
      (e: { status: number; message: string }) => e.status === 409 && /--stores/.test(e.message),
    );
    await assert.rejects(stores.deleteDocument('lance', 'docs', 'd'), (e: { status: number }) => e.status === 409);
    await stores.write('mem', 'docs', 'd', [chunk('a', 0, [1])], 'm'); // a shared store is written as usual
    await stores.close();
  });

  test('a query is embedded with the model the collection recorded (the default LanceDB store, the shipped model)', async () => {
    const stores = Stores.fromSettings(registry, settings(''));
    const embeddings = registry.get('refinery', 'embeddings');
    const refinery = (await embeddings.instance(embeddings.validateConfig({ embedding_model: EMBEDDED_MODEL }))) as { refine(c: Chunk[]): Promise<Chunk[]> };
    const text = 'The river flows to the sea. Cats sleep on warm chairs. Compilers translate source code.';
    const parts = text.match(/[^.]+\./g)!;
    let at = 0;
    const chunks = await refinery.refine(
      parts.map((p) => ({ id: 'x', text: p, start_index: (at = text.indexOf(p, at)), end_index: (at += p.length), token_count: 1 })),
    );
    await stores.write('default', 'docs', 'doc-1', chunks, EMBEDDED_MODEL);
    const hits = await stores.search('default', { collection: 'docs', query: 'kittens and cats sleeping', k: 3, mode: 'vector' });
    assert.equal(hits.length, 3);
    assert.equal(hits[0]!.text, ' Cats sleep on warm chairs.');
    assert.equal(text.slice(hits[0]!.start_index, hits[0]!.end_index), hits[0]!.text);
    assert.equal(hits[0]!.metadata.document, 'doc-1');
    await stores.close();
  });
});

test('refuseConnectionFields: a URL, host, path or credential in a body is a 422 naming the field', () => {
  for (const [body, field] of [
    [{ url: 'http://169.254.169.254/' }, 'url'],
    [{ collection: 'docs', config: { path: '/etc' } }, 'config'],
    [{ filter: { Password: 'x' } }, 'Password'],
    [{ space: 'x' }, 'space'],
  ] as const) {
    assert.throws(
      () => refuseConnectionFields(body, StoreSearch, registry),
      (e: { status: number; detail: { loc: string[]; msg: string }[] }) =>
        e.status === 422 && e.detail[0]!.loc.at(-1) === field && !JSON.stringify(e.detail).includes('169.254'),
      field,
    );
  }
  assert.doesNotThrow(() => refuseConnectionFields({ collection: 'docs', query: 'x', k: 5, filter: { document: 'd' } }, StoreSearch, registry));
});
