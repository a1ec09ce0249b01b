/** Every built-in plugin folder is complete, and every derived table in the READMEs is in step with the code. */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { discover } from '../kernel/discovery.js';
import { ROOT } from '../kernel/paths.js';
import { TOKENIZER_NAMES } from '../kernel/tokenizers/index.js';
import { derivedTables, withTable } from '../scripts/sync-docs.js';

const registry = await discover();

for (const plugin of registry.list()) {
  const folder = dirname(plugin.source);
  describe(`plugin folder ${plugin.name}`, () => {
    test('has index.ts, impl.ts, a test file and a README.md showing its route (a handshake: its connection entry)', () => {
      const files = readdirSync(folder);
      for (const f of ['index.ts', 'impl.ts', 'README.md']) assert.ok(files.includes(f), `${folder} lacks ${f}`);
      assert.ok(
        files.some((f) => f.endsWith('.test.ts')),
        `${folder} has no *.test.ts`,
      );
      assert.ok(
        readFileSync(join(folder, 'README.md'), 'utf8').includes(plugin.route ?? `"handshake": "${plugin.name}"`),
        'README.md does not show the route or connection entry',
      );
    });

    test('its manifest imports no optional package: only load() may', () => {
      const index = readFileSync(plugin.source, 'utf8');
      for (const pkg of plugin.manifest.extras.flatMap((e) => e.packages)) {
        assert.ok(!new RegExp(`from ['"]${pkg}`).test(index), `index.ts imports ${pkg} eagerly`);
      }
    });
  });
}

test('every derived table in the READMEs matches the code (npm run docs rewrites them)', async () => {
  for (const [file, name, table] of await derivedTables()) {
    const doc = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const expected = withTable(doc, name, table);
    assert.ok(expected, `${relative(ROOT, file)} lacks <!-- ${name}:start --> / <!-- ${name}:end --> markers`);
    assert.equal(doc, expected, `${relative(ROOT, file)}: the ${name} table is out of date: run npm run docs`);
  }
});

test('the README shows the commands CI runs, docs/wire.md every tokenizer, and the plugin guide exists', () => {
  const doc = readFileSync(join(ROOT, 'README.md'), 'utf8');
  assert.match(doc, /npm install && npm start/);
  assert.match(doc, /npm test/);
  const wire = readFileSync(join(ROOT, 'docs/wire.md'), 'utf8');
  for (const name of TOKENIZER_NAMES) assert.ok(wire.includes(`\`${name}\``), `docs/wire.md does not list the tokenizer ${name}`);
  const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8');
  assert.match(ci, /npm install/);
  assert.match(ci, /npm test/);
  assert.ok(existsSync(join(ROOT, 'plugins/README.md')), 'plugins/README.md explains how to write a plugin');
});
