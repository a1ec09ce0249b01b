/** A --stores setting that stops start-up never prints a secret, and cannot reach an object's prototype (service/stores/connections.ts). */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, test } from 'node:test';
import { discover } from '../kernel/discovery.js';
import { readConnections, StoresConfigError } from '../service/stores/connections.js';
import { memoryHandshakeDir } from './helpers/memory-handshake.js';

const plugins = memoryHandshakeDir();
after(() => rmSync(plugins, { recursive: true, force: true }));
const registry = await discover([plugins]);

function refusal(setting: string, env: NodeJS.ProcessEnv = {}): string {
  try {
    readConnections(setting, '/tmp', registry, env);
  } catch (e) {
    assert.ok(e instanceof StoresConfigError, String(e));
    return e.message;
  }
  assert.fail(`accepted: ${setting}`);
}

test('start-up errors blank the credentials of every URL, in any field and of any type, and every value read from env:', () => {
  const cases: [string, unknown[], NodeJS.ProcessEnv, RegExp][] = [
    // A non-secret field holding a URL with credentials (Chroma's url: the token is the secret field).
    ['a URL with credentials in a non-secret field', [{ name: 'c', handshake: 'chroma', url: 'http://admin:hunter22@127.0.0.1:8000' }], {}, /url/],
    [
      'a secret field given as an object',
      [{ name: 'p', handshake: 'pgvector', url: { u: 'postgres://bob:sekrit99@h/db', p: 'plain-secret-value' } }],
      {},
      /url/,
    ],
    ['a secret field given as a list', [{ name: 'p', handshake: 'pgvector', url: ['postgres://bob:sekrit99@h/db'] }], {}, /url/],
    [
      'an env: value in a non-secret field',
      [{ name: 'p', handshake: 'pgvector', url: 'postgres://h/db', table_prefix: 'env:PW' }],
      { PW: 'Topsecret-1' },
      /table_prefix/,
    ],
    ['an env: value with a quote, quoted as JSON', [{ name: 'm', handshake: 'memory', space: 5, token: 'env:PW' }], { PW: 'Top"secret-2' }, /space/],
    ['a URL in a field of another handshake', [{ name: 'm', handshake: 'memory', url: 'https://u:hunter22@example.com/x' }], {}, /no setting "url"/],
  ];
  for (const [what, entries, env, names] of cases) {
    const message = refusal(JSON.stringify(entries), env);
    assert.match(message, names, what);
    for (const secret of ['hunter22', 'sekrit99', 'bob:', 'plain-secret-value', 'Topsecret-1', 'Top"secret-2', 'Top\\"secret-2'])
      assert.ok(!message.includes(secret), `${what}: ${message}`);
  }
  // A JSON syntax error's excerpt of the text keeps no URL credentials either.
  const broken = refusal('[{"name":"p","handshake":"pgvector","url":"postgres://bob:sekrit99@h/db" "x": 1}]');
  assert.match(broken, /not valid JSON/);
  assert.ok(!broken.includes('sekrit99'), broken);
});

test('__proto__, constructor and prototype keys are refused anywhere in an entry, naming it', () => {
  for (const key of ['__proto__', 'constructor', 'prototype']) {
    const top = `[{"name":"m","handshake":"memory","${key}":{"space":"elsewhere"}}]`;
    assert.match(refusal(top), new RegExp(`entry 0: the key "${key}" is not a connection setting`));
    const nested = `[{"name":"m","handshake":"memory","token":{"${key}":{"x":1}}}]`;
    assert.match(refusal(nested), new RegExp(`the key "token\\.${key}"`));
  }
  assert.equal(({} as { space?: string }).space, undefined, 'no prototype was touched');
});
