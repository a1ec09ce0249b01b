/** /openapi.json is derived from the registry and the route declarations, and is a valid OpenAPI 3.1 document. */
import { ProcessedDocument } from '../kernel/chef/document.js';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { compileValidator } from '../kernel/validation.js';
import { ChunkResult } from '../wire/responses.js';
import { startApp, type TestApp } from './helpers/app.js';
import { EXAMPLES_FILE } from '../server/openapi-examples.js';

let app: TestApp;
let doc: any;
before(async () => {
  app = await startApp();
  doc = (await app.request('GET', '/openapi.json')).body;
});
after(async () => app.close());

test('validates against the OpenAPI 3.1 schema', async () => {
  const validator = new Validator();
  const result = await validator.validate(doc);
  assert.equal(doc.openapi, '3.1.0');
  assert.ok(result.valid, JSON.stringify(result.errors, null, 1));
});

test('every served route is documented once, with a unique operationId', () => {
  const ids = new Set<string>();
  for (const r of app.booted.app.routes.filter((x) => !x.hidden)) {
    const op = doc.paths[r.path.replace(/:([A-Za-z_]+)/g, '{$1}')]?.[r.method];
    assert.ok(op, `${r.method} ${r.path} missing`);
    assert.ok(!ids.has(op.operationId));
    ids.add(op.operationId);
  }
});

test('every $ref resolves inside the document', () => {
  const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
  assert.ok(refs.length > 0);
  for (const ref of refs) {
    const path = ref.slice(8, -1).replace(/^#\//, '').split('/');
    let node: any = doc;
    for (const key of path) node = node?.[key];
    assert.ok(node, `${ref} does not resolve`);
  }
});

test("each plugin's request schema is its route's validated body, and its examples pass it", () => {
  for (const plugin of app.booted.deps.registry.routed()) {
    const op = doc.paths[plugin.route].post;
    const ref = op.requestBody.content['application/json'].schema.$ref as string;
    const schema = doc.components.schemas[ref.split('/').pop()!];
    for (const key of plugin.configKeys) assert.ok(schema.properties[key], `${plugin.name}: ${key} undocumented`);
    assert.ok(op.responses['422'] && op.responses['501'], `${plugin.name}: error responses undocumented`);
    const check = compileValidator(plugin.body);
    for (const example of Object.values(op.requestBody.content['application/json'].examples ?? {}) as { value: unknown }[]) {
      const value = plugin.kind === 'refinery' ? { chunks: [], ...(example.value as object) } : example.value;
      assert.doesNotThrow(() => check(structuredClone(value)), `${plugin.name}: example ${JSON.stringify(example.value)}`);
    }
  }
});

test('each 200 answer carries the example npm run docs recorded from a real run of the plugin on its example body, valid for the response schema', async () => {
  const check = compileValidator(ChunkResult);
  const recorded = JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) as Record<string, unknown>;
  const checkDocument = compileValidator(ProcessedDocument);
  for (const plugin of app.booted.deps.registry.list('chef')) {
    const example = doc.paths[plugin.route].post.responses['200'].content['application/json'].example;
    if (plugin.manifest.bytesOnly) continue; // reads files only: its JSON example body would be a 422
    assert.ok(example, `${plugin.name}: no example recorded: run npm run docs`);
    assert.deepEqual(example, recorded[`chef:${plugin.name}`], `${plugin.name}: the example is the recorded one`);
    assert.doesNotThrow(() => checkDocument(structuredClone(example)), `${plugin.name}: example fits the response schema`);
  }
  for (const plugin of [...app.booted.deps.registry.list('chunker'), ...app.booted.deps.registry.list('refinery')]) {
    const res = doc.paths[plugin.route].post.responses['200'];
    assert.ok(res.content['application/x-ndjson']?.schema, `${plugin.name}: the NDJSON answer is documented`);
    const example = res.content['application/json'].example;
    if (plugin.manifest.network) {
      assert.equal(example, undefined, `${plugin.name} calls a remote service: not run to write the docs`);
      continue;
    }
    // Only a plugin whose model is not shipped (neural: docs are made with an empty model cache) may lack one.
    if (plugin.manifest.extras.length === 0 && plugin.name !== 'neural') assert.ok(example, `${plugin.name}: no example recorded: run npm run docs`);
    if (example === undefined) continue;
    assert.deepEqual(example, recorded[`${plugin.kind}:${plugin.name}`], `${plugin.name}: the example is the recorded one`);
    assert.ok(Array.isArray(example) && example.length > 0, `${plugin.name}: an example answer with chunks`);
    assert.doesNotThrow(() => check(structuredClone(example)), `${plugin.name}: example fits the response schema`);
    if (plugin.kind === 'chunker') {
      // The very answer the route gives for its example body, so it cannot drift from the code.
      const body = plugin.manifest.examples![0]!;
      assert.deepEqual(example, (await app.post(plugin.route, body)).body, `${plugin.name}: example is the route's answer`);
      const text = [...(body.text as string)];
      for (const c of example as { text: string; start_index: number; end_index: number }[])
        assert.equal(text.slice(c.start_index, c.end_index).join(''), c.text);
    } else {
      assert.ok(
        (example as { id: string }[]).every((c) => typeof c.id === 'string'),
        `${plugin.name}: refined chunks`,
      );
    }
  }
  const execute = doc.paths['/v1/pipelines/{id}/execute'].post.responses['200'];
  assert.doesNotThrow(() => check(structuredClone(execute.content['application/json'].example)));
  assert.ok(execute.content['application/x-ndjson'].schema);
});

test('serving /openapi.json runs no plugin: no model load, no wait on a plugin that never answers', async () => {
  // A chunker whose load() leaves a mark and whose chunk() never returns: the docs must not call either.
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-stuck-'));
  const mark = join(dir, 'loaded');
  mkdirSync(join(dir, 'stuck'));
  writeFileSync(
    join(dir, 'stuck', 'index.mjs'),
    `import { writeFileSync } from 'node:fs';
     export default { name: 'stuck', kind: 'chunker', summary: 'Never answers.', extras: [], examples: [{ text: 'hello' }],
       config: { type: 'object', properties: {} },
       load: async () => { writeFileSync(${JSON.stringify(mark)}, ''); return { create: () => ({ chunk: () => new Promise(() => {}) }) }; } };`,
  );
  const own = await startApp({ 'plugins-dir': dir });
  try {
    const res = await own.request('GET', '/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(
      res.body.paths['/v1/chunk/stuck'].post.responses['200'].content['application/json'].example,
      undefined,
      'a plugin added after npm run docs has no example',
    );
    assert.ok(res.body.paths['/v1/chunk/token'].post.responses['200'].content['application/json'].example, 'the recorded examples are served');
    assert.equal(existsSync(mark), false, 'the docs loaded a plugin');
  } finally {
    await own.close();
  }
});
