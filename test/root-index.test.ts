/**
 * GET / answers chunkd's own keys and the keys Chonkie's server answers there, derived from the
 * registry: a tool that discovers a server's chunkers from its root (Chonkie's own test does,
 * `"/v1/chunk/token" in data["chunkers"]`) finds every chunker, dropped-in ones included.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { KINDS, type Kind } from '../kernel/plugin.js';
import { kindKey } from '../server/routes/meta.js';
import { startApp, type TestApp } from './helpers/app.js';
import { tagPluginDir } from './helpers/tag-plugin.js';

describe('GET / with a dropped-in refinery', () => {
  const plugins = tagPluginDir();
  let app: TestApp;
  before(async () => (app = await startApp({ 'plugins-dir': plugins })));
  after(async () => {
    await app.close();
    rmSync(plugins, { recursive: true, force: true });
  });

  test("Chonkie's keys beside chunkd's, each kind's routes from the registry", async () => {
    const res = await app.request('GET', '/');
    assert.equal(res.status, 200);
    const { registry } = app.booted.deps;
    assert.equal(res.body.name, 'chunkd');
    assert.equal(res.body.health, '/health');
    assert.equal(res.body.pipelines, '/v1/pipelines');
    assert.equal(res.body.docs, '/docs');
    assert.ok(Array.isArray(res.body.routes) && res.body.pages.docs === '/docs', "chunkd's own keys stay");
    for (const kind of Object.keys(KINDS) as Kind[]) {
      // A handshake has no route of its own (connections reach it): it is listed by name.
      assert.deepEqual(
        res.body[kindKey(kind)],
        registry.list(kind).map((p) => p.route ?? p.name),
        kind,
      );
    }
    assert.ok(res.body.refineries.includes('/v1/refine/tag'), 'the dropped-in refinery is listed');
    assert.ok(res.body.chunkers.includes('/v1/chunk/token'), "Chonkie's test: /v1/chunk/token in chunkers");
    assert.ok(res.body.refineries.includes('/v1/refine/embeddings') && res.body.refineries.includes('/v1/refine/overlap'));
    // Every listed route is served: a POST with an empty body reaches the plugin (a 422 for the missing input, not a 404).
    const routed = (Object.keys(KINDS) as Kind[]).filter((kind) => KINDS[kind].route !== null);
    const listed = routed.flatMap((kind) => res.body[kindKey(kind)] as string[]);
    assert.equal(listed.length, registry.routed().length);
    for (const path of listed) assert.equal((await app.post(path, {})).status, 422, path);
  });

  test('the keys of a kind are its plural', () => {
    assert.deepEqual(['chunker', 'refinery', 'chef', 'key'].map(kindKey), ['chunkers', 'refineries', 'chefs', 'keys']);
  });

  test('OpenAPI documents the answer, and its example is the answer', async () => {
    const doc = (await app.request('GET', '/openapi.json')).body;
    const ok = doc.paths['/'].get.responses['200'].content['application/json'];
    const schema = ok.schema.$ref ? doc.components.schemas[ok.schema.$ref.split('/').pop()] : ok.schema;
    for (const key of ['name', 'version', 'health', 'chunkers', 'refineries', 'pipelines']) assert.ok(key in schema.properties, key);
    assert.deepEqual(ok.example, (await app.request('GET', '/')).body);
  });
});
