/** One document-id limit everywhere an id is taken (kernel/handshake.ts MAX_DOCUMENT_ID_LENGTH): an id one surface accepts, every other takes. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, test } from 'node:test';
import { discover } from '../kernel/discovery.js';
import { MAX_DOCUMENT_ID_LENGTH } from '../kernel/handshake.js';
import { compileValidator } from '../kernel/validation.js';
import { Stores } from '../service/stores/stores.js';
import { EvaluateDocument } from '../wire/evaluation.js';
import { JobDocumentInput } from '../wire/jobs.js';
import { PipelineExecute } from '../wire/pipelines.js';
import { StoreSearch } from '../wire/stores.js';
import { memoryHandshakeDir } from './helpers/memory-handshake.js';

const plugins = memoryHandshakeDir();
after(() => rmSync(plugins, { recursive: true, force: true }));

const longest = 'i'.repeat(MAX_DOCUMENT_ID_LENGTH);
const tooLong = `${longest}i`;

test('every body that names a document takes an id of the one limit, and refuses one longer', () => {
  const bodies: [string, Parameters<typeof compileValidator>[0], (id: string) => unknown][] = [
    ['pipeline execute: document', PipelineExecute, (id) => ({ text: 'x', document: id })],
    ['pipeline execute: a list of documents', PipelineExecute, (id) => ({ text: ['x'], document: [id] })],
    ['job document: id', JobDocumentInput, (id) => ({ id, text: 'x' })],
    ['search: filter.document', StoreSearch, (id) => ({ collection: 'docs', query: 'x', k: 1, filter: { document: id } })],
    ['evaluation document: id', EvaluateDocument, (id) => ({ id, text: 'x' })],
  ];
  for (const [what, schema, body] of bodies) {
    const check = compileValidator(schema);
    assert.doesNotThrow(() => check(body(longest), ['body']), what);
    assert.throws(
      () => check(body(tooLong), ['body']),
      (e: { status: number }) => e.status === 422,
      what,
    );
  }
});

test('a store writes, searches and deletes a document under the longest id, and refuses a longer one', async () => {
  const registry = await discover([plugins]);
  const stores = new Stores(registry, [{ name: 'mem', handshake: 'memory', config: { space: `ids-${process.pid}`, token: '' }, secrets: [] }], {
    replicaSet: false,
  });
  const chunk = { id: 'x', text: 'hello', start_index: 0, end_index: 5, token_count: 1, embedding: [1, 0] };
  await stores.write('mem', 'docs', longest, [chunk], 'm');
  assert.equal((await stores.search('mem', { collection: 'docs', embedding: [1, 0], k: 1, filter: { document: longest } })).length, 1);
  assert.equal(await stores.deleteDocument('mem', 'docs', longest), 1);
  await assert.rejects(stores.write('mem', 'docs', tooLong, [chunk], 'm'), (e: { status: number }) => e.status === 422);
  await stores.close();
});
