/** A handshake dropped into a plugins folder is listed like a built-in one, with no server change. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';
import { memoryHandshakeDir } from './helpers/memory-handshake.js';

describe('a dropped-in handshake', () => {
  const plugins = memoryHandshakeDir();
  let app: TestApp;
  before(async () => (app = await startApp({ 'plugins-dir': plugins })));
  after(async () => {
    await app.close();
    rmSync(plugins, { recursive: true, force: true });
  });

  test('GET /v1/plugins lists it with its kind, connection schema and availability, and no route', async () => {
    const res = await app.request('GET', '/v1/plugins');
    const memory = res.body.find((p: { name: string }) => p.name === 'memory');
    assert.ok(memory, 'listed');
    assert.equal(memory.kind, 'handshake');
    assert.equal(memory.route, undefined);
    assert.equal(memory.available, true);
    assert.deepEqual(memory.capabilities, { vector: true, text: true });
    assert.equal(memory.config.properties.token.secret, true);
  });

  test('GET / lists it under handshakes, by name', async () => {
    const res = await app.request('GET', '/');
    assert.ok(res.body.handshakes.includes('memory'), JSON.stringify(res.body.handshakes));
  });
});
