import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { moduleBeside } from '../../kernel/paths.js';

const ERRORS_MODULE = moduleBeside(import.meta.url, '../../kernel/errors');

/**
 * A plugins directory holding `gate`, a chunker that makes a batch's progress observable without
 * timing guesses: each document it starts is appended (its text, one line) to `<marker_dir>/log`;
 * a text starting with `wait` then waits, without blocking the thread, until `<marker_dir>/release`
 * exists or its request's signal is aborted; the text `FAIL` is refused with a 400 (a document that fails on its own);
 * the text `BUG` throws a plain Error (a plugin bug, not a catalogue error).
 * With `hold: true`, making the chunker (before any document runs) logs `create` and waits for `<marker_dir>/release`.
 */
export function gatePluginDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-gate-'));
  mkdirSync(join(dir, 'gate'));
  writeFileSync(
    join(dir, 'gate', 'index.mjs'),
    `export default { name: 'gate', kind: 'chunker', summary: 'Logs each document; waits for a release file on texts starting with wait.', extras: [],
      config: { type: 'object', properties: { marker_dir: { type: 'string', default: '', description: 'Where the log and release files are.' }, hold: { type: 'boolean', default: false, description: 'Wait for the release file when the chunker is made.' } } },
      load: () => import('./impl.mjs') };`,
  );
  writeFileSync(
    join(dir, 'gate', 'impl.mjs'),
    `import { appendFileSync, existsSync } from 'node:fs';
     import { ChunkdError } from ${JSON.stringify(ERRORS_MODULE)};
     export const create = async ({ marker_dir, hold }) => {
       if (marker_dir && hold) {
         appendFileSync(marker_dir + '/log', 'create\\n');
         while (!existsSync(marker_dir + '/release')) await new Promise((r) => setTimeout(r, 10));
       }
       return { async chunk(text, context) {
       if (marker_dir) appendFileSync(marker_dir + '/log', text + '\\n');
       if (text === 'BUG') throw new Error('the gate plugin has a bug');
       if (text === 'FAIL') throw new ChunkdError('BAD_REQUEST', 'The gate refuses the text FAIL: send another text.');
       if (marker_dir && text.startsWith('wait')) while (!existsSync(marker_dir + '/release') && !context?.signal?.aborted) await new Promise((r) => setTimeout(r, 10));
       return [{ start: 0, end: text.length, tokenCount: 1 }];
     } };
     };`,
  );
  return dir;
}
