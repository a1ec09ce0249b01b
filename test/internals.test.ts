/** No internals on the wire: a plugin bug answers a plain 500, and the log keeps the cause. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createLogger } from '../service/logger.js';
import { startApp } from './helpers/app.js';
import { brokenPluginDir } from './helpers/broken-plugin.js';

describe('no internals on the wire', () => {
  test('a plugin bug answers a plain 500; the log has the details', async () => {
    const lines: string[] = [];
    const app = await startApp(
      { 'plugins-dir': brokenPluginDir() },
      {},
      createLogger('info', (l) => lines.push(l)),
    );
    try {
      const res = await app.post('/v1/chunk/broken', { text: 'hi' });
      assert.equal(res.status, 500);
      assert.deepEqual(res.body, {
        detail: 'Internal server error. The server log has the details.',
        code: 'INTERNAL',
        message: 'Internal server error. The server log has the details.',
      });
      assert.ok(
        lines.some((l) => l.includes('/srv/secret/path.bin')),
        'the log keeps the cause',
      );
    } finally {
      await app.close();
    }
  });
});
