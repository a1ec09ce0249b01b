import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { startApp, type TestApp } from './app.js';

/**
 * A plugins directory holding `tag`, a refinery that sets `metadata.label` on every chunk. The
 * built-in plugins may have no refinery yet; pipeline tests need one for their refine steps.
 */
export function tagPluginDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-tag-'));
  mkdirSync(join(dir, 'tag'));
  writeFileSync(
    join(dir, 'tag', 'index.mjs'),
    `export default { name: 'tag', kind: 'refinery', summary: 'Labels every chunk.', extras: [],
      config: { type: 'object', properties: { label: { type: 'string', minLength: 1, default: 'tagged', description: 'Value of metadata.label.' } } },
      load: () => import('./impl.mjs') };`,
  );
  writeFileSync(
    join(dir, 'tag', 'impl.mjs'),
    `export const create = ({ label }) => ({ refine: (chunks) => chunks.map((c) => ({ ...c, metadata: { ...c.metadata, label } })) });`,
  );
  return dir;
}

/**
 * Registers the file's before/after hooks: an app started with the tag plugin (handed to `use`),
 * closed afterwards with its plugins directory removed.
 */
export function withTagPluginApp(use: (app: TestApp) => void): void {
  const plugins = tagPluginDir();
  let app: TestApp | undefined;
  before(async () => {
    app = await startApp({ 'plugins-dir': plugins });
    use(app);
  });
  after(async () => {
    await app?.close();
    rmSync(plugins, { recursive: true, force: true });
  });
}
