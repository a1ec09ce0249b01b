/** Extras: optional packages are probed by resolution (never imported); a missing one gives 501 with the install command. */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isInstalled, missingPackages } from '../kernel/extras.js';
import { moduleBeside } from '../kernel/paths.js';
import { startApp, type TestApp } from './helpers/app.js';

const dir = mkdtempSync(join(tmpdir(), 'chunkd-extras-'));
const MARKER = join(dir, 'imported');

/** Two plugins: one whose required extra is an installed package the test hides, one with an optional extra. */
function plugin(name: string, extras: string, impl: string): void {
  mkdirSync(join(dir, name));
  writeFileSync(
    join(dir, name, 'index.mjs'),
    `export default { name: '${name}', kind: 'chunker', summary: 'Test plugin.', extras: ${extras},
      config: { type: 'object', properties: { fancy: { type: 'boolean', default: false, description: 'Use the optional package.' } } },
      load: () => import('./impl.mjs') };`,
  );
  writeFileSync(join(dir, name, 'impl.mjs'), impl);
}
plugin(
  'needs-tiktoken',
  `[{ name: 'bpe', packages: ['tiktoken'], reason: 'BPE counting.' }]`,
  `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(MARKER)}, 'x');
   export const create = () => ({ chunk: (t) => [{ start: 0, end: t.length, tokenCount: 1 }] });`,
);
plugin(
  'optional-extra',
  `[{ name: 'fancy', packages: ['chunkd-absent-package-for-tests'], reason: 'Fancy mode.', required: false }]`,
  `import { requireExtra } from ${JSON.stringify(moduleBeside(import.meta.url, '../kernel/extras'))};
   export function create(config) {
     if (config.fancy) requireExtra({ name: 'fancy', packages: ['chunkd-absent-package-for-tests'], reason: '' }, "fancy: true");
     return { chunk: (t) => [{ start: 0, end: t.length, tokenCount: 1 }] };
   }`,
);

let app: TestApp;
before(async () => {
  process.env.CHUNKD_HIDE_PACKAGES = 'tiktoken';
  app = await startApp({ 'plugins-dir': dir });
});
after(async () => {
  delete process.env.CHUNKD_HIDE_PACKAGES;
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('probing', () => {
  test('resolves packages without importing them', () => {
    delete process.env.CHUNKD_HIDE_PACKAGES;
    try {
      assert.equal(isInstalled('tiktoken'), true);
      assert.equal(isInstalled('chunkd-absent-package-for-tests'), false);
      assert.deepEqual(missingPackages([{ name: 'x', packages: ['tiktoken', 'chunkd-absent-package-for-tests'], reason: '' }]), [
        'chunkd-absent-package-for-tests',
      ]);
      assert.deepEqual(
        missingPackages([{ name: 'x', packages: ['chunkd-absent-package-for-tests'], reason: '', required: false }]),
        [],
        'optional extras do not gate a plugin',
      );
    } finally {
      process.env.CHUNKD_HIDE_PACKAGES = 'tiktoken';
    }
  });
});

describe('a required extra that is missing', () => {
  test('keeps its route, which answers 501 with the npm install line, and its code is never imported', async () => {
    const res = await app.post('/v1/chunk/needs-tiktoken', { text: 'hello' });
    assert.equal(res.status, 501);
    assert.equal(res.body.code, 'MISSING_EXTRA');
    assert.match(res.body.detail, /needs optional packages that are not installed: tiktoken\. Install them: npm install tiktoken/);
    assert.equal(existsSync(MARKER), false, 'the implementation module was not imported');
  });

  test('is reported by /v1/plugins and in the OpenAPI description', async () => {
    const plugins = (await app.request('GET', '/v1/plugins')).body;
    const p = plugins.find((x: { name: string }) => x.name === 'needs-tiktoken');
    assert.equal(p.available, false);
    assert.deepEqual(p.missing, ['tiktoken']);
    assert.equal(p.extras[0].installed, false);
    const doc = (await app.request('GET', '/openapi.json')).body;
    assert.match(doc.paths['/v1/chunk/needs-tiktoken'].post.description, /tiktoken/);
  });
});

describe('an optional extra that is missing', () => {
  test('leaves the plugin available, and answers 501 only for a config that needs it', async () => {
    const plugins = (await app.request('GET', '/v1/plugins')).body;
    assert.equal(plugins.find((x: { name: string }) => x.name === 'optional-extra').available, true);
    assert.equal((await app.post('/v1/chunk/optional-extra', { text: 'hi' })).status, 200);
    const res = await app.post('/v1/chunk/optional-extra', { text: 'hi', fancy: true });
    assert.equal(res.status, 501);
    assert.match(
      res.body.detail,
      /fancy: true needs optional packages that are not installed: chunkd-absent-package-for-tests\. Install them: npm install chunkd-absent-package-for-tests/,
    );
  });
});
