/**
 * The store contract, run on every handshake this server has (built in or dropped in) against its
 * real engine, started by the test (test/helpers/engines.ts). A handshake whose engine cannot be
 * started here is reported as skipped, never passed.
 */
import { rmSync } from 'node:fs';
import { after, test } from 'node:test';
import { discover } from '../kernel/discovery.js';
import { ENGINES } from './helpers/engines.js';
import { handshakeSuite } from './helpers/handshake-suite.js';
import { memoryHandshakeDir } from './helpers/memory-handshake.js';

const dropped = memoryHandshakeDir();
after(() => rmSync(dropped, { recursive: true, force: true }));
const registry = await discover([dropped]);
const engines = { ...ENGINES, memory: async () => ({ config: { space: `conformance-${process.pid}` }, stop: async () => {} }) };

for (const plugin of registry.list('handshake')) {
  const start = engines[plugin.name as keyof typeof engines];
  if (plugin.missing.length) test(`handshake ${plugin.name}: not run, its packages are not installed (${plugin.missing.join(', ')})`, { skip: true }, () => {});
  else if (!start) test(`handshake ${plugin.name}: not run, no engine for it can be started here`, { skip: true }, () => {});
  else handshakeSuite(plugin, start);
}
