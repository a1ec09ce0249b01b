import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A plugins directory holding `faulty`, a handshake whose every write fails: with the same error
 * each time (mode "same": a store that will never take these writes), or a new one each time (mode
 * "varying"). Its calls are counted in globalThis.__chunkdFaultyCalls by connection `tag` (the
 * server runs in the test's process).
 */
export function faultyHandshakeDir(dir = mkdtempSync(join(tmpdir(), 'chunkd-faulty-'))): string {
  mkdirSync(join(dir, 'faulty'));
  writeFileSync(
    join(dir, 'faulty', 'index.mjs'),
    `export default { name: 'faulty', kind: 'handshake', summary: 'Fails every write.', extras: [],
      capabilities: { vector: true, text: false },
      config: { type: 'object', properties: {
        tag: { type: 'string', minLength: 1, default: 'faulty', description: 'Counts its calls under this name.' },
        mode: { type: 'string', enum: ['same', 'varying'], default: 'same', description: 'The same error each time, or a new one.' } } },
      load: () => import('./impl.mjs') };`,
  );
  writeFileSync(
    join(dir, 'faulty', 'impl.mjs'),
    `const calls = globalThis.__chunkdFaultyCalls ??= new Map();
export function create({ tag, mode }) {
  const fail = async () => {
    const n = (calls.get(tag) ?? 0) + 1;
    calls.set(tag, n);
    throw new Error(mode === 'same' ? 'column cannot have more than 16000 dimensions' : 'transient failure number ' + n);
  };
  return {
    async collections() { return []; },
    write: fail,
    writeMany: fail,
    async delete() { return 0; },
    async search() { return []; },
    async close() {},
  };
}
`,
  );
  return dir;
}

/** Writes the faulty store tagged `tag` was asked for so far. */
export const faultyCalls = (tag: string): number => (globalThis as { __chunkdFaultyCalls?: Map<string, number> }).__chunkdFaultyCalls?.get(tag) ?? 0;
