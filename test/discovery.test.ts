/** Discovery: a folder dropped into a plugins directory becomes a plugin; a bad one stops start-up, naming the file. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { discover, PluginLoadError } from '../kernel/discovery.js';
import { startApp } from './helpers/app.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A plugins directory holding the given folders, each a map of file name → contents. */
function pluginsDir(folders: Record<string, Record<string, string>>): string {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-plugins-'));
  dirs.push(dir);
  for (const [name, files] of Object.entries(folders)) {
    mkdirSync(join(dir, name));
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, name, file), text);
  }
  return dir;
}

/** A user plugin written as plain JavaScript: a manifest needs no import from chunkd (config is JSON Schema). */
const manifest = (name: string, over: string = '') => `export default {
  name: '${name}', kind: 'chunker', summary: 'One chunk per line.', extras: [],
  config: { type: 'object', properties: { keep_newline: { type: 'boolean', default: true, description: 'Keep the line break at the end of each chunk.' } } },
  examples: [{ text: 'one\\ntwo' }],
  load: () => import('./impl.mjs'), ${over}
};`;
const LINES_IMPL = `export function create(config) {
  return { chunk(text) {
    const spans = [];
    for (const m of text.matchAll(/[^\\n]*\\n|[^\\n]+$/g)) {
      const end = config.keep_newline || !m[0].endsWith('\\n') ? m.index + m[0].length : m.index + m[0].length - 1;
      if (end > m.index) spans.push({ start: m.index, end, tokenCount: 1 });
    }
    return spans;
  } };
}`;

describe('a dropped-in plugin folder', () => {
  test('gets a route, an OpenAPI entry and a /v1/plugins entry, and works', async () => {
    const dir = pluginsDir({ lines: { 'index.mjs': manifest('lines'), 'impl.mjs': LINES_IMPL } });
    const app = await startApp({ 'plugins-dir': dir });
    try {
      const doc = (await app.request('GET', '/openapi.json')).body;
      assert.ok(doc.paths['/v1/chunk/lines']?.post, 'route documented');
      assert.equal(doc.components.schemas.LinesChunkRequest.properties.keep_newline.default, true);
      const plugins = (await app.request('GET', '/v1/plugins')).body;
      assert.ok(plugins.some((p: { name: string; available: boolean }) => p.name === 'lines' && p.available));
      const res = await app.post('/v1/chunk/lines', { text: 'one\nzwei 🦛\nthree', keep_newline: false });
      assert.equal(res.status, 200);
      assert.deepEqual(
        res.body.map((c: { text: string; start_index: number }) => [c.text, c.start_index]),
        [
          ['one', 0],
          ['zwei 🦛', 4],
          ['three', 11],
        ],
      );
      const bad = await app.post('/v1/chunk/lines', { text: 'x', keep_newline: 'no' });
      assert.equal(bad.status, 422, 'its schema validates requests like a built-in one');
    } finally {
      await app.close();
    }
  });

  test('folders named _… are helpers, not plugins', async () => {
    const dir = pluginsDir({ _shared: { 'util.mjs': 'export const x = 1;' } });
    const registry = await discover([dir]);
    assert.ok(!registry.list().some((p) => p.name.startsWith('_')));
  });
});

describe('a bad plugins directory stops start-up with a message naming the file', () => {
  const cases: [string, Record<string, Record<string, string>>, RegExp][] = [
    ['a folder without an index file', { stray: { 'readme.txt': 'hi' } }, /stray has no index\.js or index\.mjs or index\.ts/],
    ['a manifest that does not parse', { broken: { 'index.mjs': 'export default {' } }, /Cannot import plugin manifest .*broken[/\\]index\.mjs/],
    ['no default export', { nodefault: { 'index.mjs': 'export const x = 1;' } }, /nodefault[/\\]index\.mjs must export default/],
    [
      'a config field without a default',
      { nodefault2: { 'index.mjs': manifest('nodefault2').replace('default: true, ', '') } },
      /nodefault2[/\\]index\.mjs: config field 'keep_newline' needs a default and a description/,
    ],
    ['an invalid name', { badname: { 'index.mjs': manifest('Bad Name') } }, /Invalid plugin manifest .*badname[/\\]index\.mjs.*name/],
    ['an unknown kind', { badkind: { 'index.mjs': manifest('badkind').replace("kind: 'chunker'", "kind: 'splitter'") } }, /Invalid plugin manifest .*badkind/],
    ['load that is not a function', { noload: { 'index.mjs': manifest('noload', "load: 'impl.mjs'") } }, /noload[/\\]index\.mjs: load must be a function/],
    ['a name taken by a built-in plugin', { token: { 'index.mjs': manifest('token') } }, /Two chunker plugins are named 'token'/],
    [
      'a config that is not a valid JSON Schema (a keyword of the wrong type)',
      { badschema: { 'index.mjs': manifest('badschema').replace("type: 'boolean', default: true,", "type: 'integer', minimum: '5', default: 7,") } },
      /badschema[/\\]index\.mjs: its config is not a valid JSON Schema \(.*minimum must be number/,
    ],
  ];
  for (const [name, folders, message] of cases) {
    test(name, async () => {
      const dir = pluginsDir(folders);
      await assert.rejects(discover([dir]), (e) => e instanceof PluginLoadError && message.test(e.message));
    });
  }

  test('a plugins directory that does not exist', async () => {
    await assert.rejects(discover(['/nonexistent/plugins']), /Plugins directory '\/nonexistent\/plugins' does not exist/);
  });
});

describe('the registry', () => {
  test('is frozen after discovery', async () => {
    const registry = await discover();
    assert.throws(() => registry.register(registry.list()[0]!.manifest, 'x'), /frozen/);
  });
});
