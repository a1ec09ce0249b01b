import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A plugin whose implementation throws an error carrying a file path: a bug, whose details stay in the log. */
export function brokenPluginDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-broken-'));
  mkdirSync(join(dir, 'broken'), { recursive: true });
  writeFileSync(
    join(dir, 'broken', 'index.mjs'),
    `export default { name: 'broken', kind: 'chunker', summary: 'Always fails.', extras: [], config: { type: 'object', properties: {} }, load: () => import('./impl.mjs') };`,
  );
  writeFileSync(
    join(dir, 'broken', 'impl.mjs'),
    `export const create = () => ({ chunk() { throw new Error('ENOENT: no such file /srv/secret/path.bin'); } });`,
  );
  return dir;
}
