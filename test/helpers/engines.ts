import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from './handshake-suite.js';
import { pgliteEngine } from './pglite.js';

/**
 * How a test starts the real engine of each handshake, by handshake name: a handshake whose engine
 * no test can start here has no entry, and the conformance suite says it was not run.
 */
export const ENGINES: Record<string, () => Promise<Engine>> = {
  async lancedb() {
    const path = mkdtempSync(join(tmpdir(), 'chunkd-lancedb-'));
    return { config: { path }, stop: async () => rmSync(path, { recursive: true, force: true }) };
  },
  pgvector: pgliteEngine,
};
