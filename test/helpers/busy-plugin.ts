import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A plugins directory holding `busy`: a chunker that writes `<marker_dir>/started`, keeps its
 * thread busy until `<marker_dir>/release` exists (30 s at most), then writes `finished`. It makes
 * "work in progress" observable without timing guesses.
 */
export function busyPluginDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-busy-'));
  mkdirSync(join(dir, 'busy'));
  writeFileSync(
    join(dir, 'busy', 'index.mjs'),
    `export default { name: 'busy', kind: 'chunker', summary: 'Blocks its thread until released.', extras: [],
      config: { type: 'object', properties: { marker_dir: { type: 'string', default: '', description: 'Where the started/release/finished files are.' } } },
      load: () => import('./impl.mjs') };`,
  );
  writeFileSync(
    join(dir, 'busy', 'impl.mjs'),
    `import { existsSync, writeFileSync } from 'node:fs';
     export const create = ({ marker_dir }) => ({ chunk(text) {
       writeFileSync(marker_dir + '/started', '');
       const t0 = Date.now();
       while (!existsSync(marker_dir + '/release') && Date.now() - t0 < 30000);
       writeFileSync(marker_dir + '/finished', '');
       return [{ start: 0, end: text.length, tokenCount: 1 }];
     } });`,
  );
  return dir;
}

/** A fresh marker directory (named `_…`, so discovery does not take it for a plugin). */
export const markerDir = (pluginsDir: string) => mkdtempSync(join(pluginsDir, '_markers-'));

export async function waitFor(file: string): Promise<void> {
  while (!existsSync(file)) await new Promise((r) => setTimeout(r, 20));
}

/** Big enough to go to the worker pool. */
export const BIG_TEXT = 'x'.repeat(256 * 1024);
