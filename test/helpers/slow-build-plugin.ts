import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A plugins directory holding `slowbuild`: a chunker whose create() (as a model load would) takes
 * until `<marker_dir>/release` exists, without blocking the event loop. It makes a slow write-time
 * check observable without timing guesses.
 */
export function slowBuildPluginDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-slow-'));
  mkdirSync(join(dir, 'slowbuild'));
  writeFileSync(
    join(dir, 'slowbuild', 'index.mjs'),
    `export default { name: 'slowbuild', kind: 'chunker', summary: 'Builds slowly.', extras: [],
      config: { type: 'object', properties: { marker_dir: { type: 'string', default: '', description: 'Where the release file appears.' } } },
      load: () => import('./impl.mjs') };`,
  );
  writeFileSync(
    join(dir, 'slowbuild', 'impl.mjs'),
    `import { existsSync } from 'node:fs';
     export async function create({ marker_dir }) {
       while (!existsSync(marker_dir + '/release')) await new Promise((r) => setTimeout(r, 20));
       return { chunk: (text) => [{ start: 0, end: text.length, tokenCount: 1 }] };
     }`,
  );
  return dir;
}
