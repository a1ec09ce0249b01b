/** `chunkd serve`: flags, --help, refusals, and a real server process from the sources and from the build. */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { resolveSettings, SETTINGS } from '../server/settings.js';
import { startChild } from './helpers/child.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCE_CLI = ['--import', 'tsx', join(ROOT, 'server/cli.ts')];
const dataDir = mkdtempSync(join(tmpdir(), 'chunkd-cli-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

const run = (args: string[]) => spawnSync(process.execPath, [...SOURCE_CLI, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CHUNKD_LOG_LEVEL: '' } });

describe('arguments', () => {
  test('--help lists every setting with its env variable and default, and exits 0', () => {
    const res = run(['serve', '--help']);
    assert.equal(res.status, 0);
    for (const [name, spec] of Object.entries(SETTINGS)) {
      assert.match(res.stdout, new RegExp(`--${name}\\b`));
      assert.match(res.stdout, new RegExp(spec.env));
    }
  });

  const refusals: [string[], RegExp][] = [
    [['serve', '--log-level', 'verbose'], /--log-level \(CHUNKD_LOG_LEVEL\) must be one of debug, info, warning, error; got 'verbose'/],
    [['serve', '--port', 'eighty'], /--port \(CHUNKD_PORT\) must be a whole number/],
    [['serve', '--colour'], /Unknown option '--colour'[\s\S]*chunkd serve --help/],
    [['launch'], /Unknown command 'launch'\. Run: chunkd serve --help/],
  ];
  for (const [args, message] of refusals) {
    test(`refuses ${args.join(' ')} with exit code 2 and a message`, () => {
      const res = run(args);
      assert.equal(res.status, 2);
      assert.match(res.stderr, message);
    });
  }
});

/** Start a server process, wait for its "listening" log line, check it answers, stop it with SIGTERM. */
async function serveAndStop(args: string[]): Promise<{ code: number | null; port: number; plugins: string[] }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const listening = await new Promise<{ port: number; plugins: string[] }>((resolve, reject) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      log += d;
      const line = log.split('\n').find((l) => l.includes('"listening"'));
      if (line) resolve(JSON.parse(line));
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${log}`)));
  });
  const health = await fetch(`http://127.0.0.1:${listening.port}/health`);
  assert.deepEqual(await health.json(), { status: 'ok' });
  const chunks = await fetch(`http://127.0.0.1:${listening.port}/v1/chunk/token`, { method: 'POST', body: JSON.stringify({ text: 'abcdef', chunk_size: 4 }) });
  assert.deepEqual(((await chunks.json()) as { text: string }[]).map((c) => c.text), ['abcd', 'ef']);
  const code = await new Promise<number | null>((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', resolve);
    child.kill('SIGTERM');
  });
  return { code, ...listening };
}

describe('serving', () => {
  const flags = ['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--log-level', 'info'];

  test('from the sources: serves every plugin, stops cleanly on SIGTERM', async () => {
    const res = await serveAndStop([...SOURCE_CLI, ...flags]);
    assert.ok(res.port > 0);
    assert.ok(res.plugins.includes('/v1/chunk/token'));
    assert.equal(res.code, 0);
  });

  test('from the build (what npm start runs): dist/ finds its plugins and assets', async () => {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/tsup/dist/cli-default.js'), '--silent'], { cwd: ROOT });
    const fromSource = await serveAndStop([...SOURCE_CLI, ...flags]);
    const fromDist = await serveAndStop([join(ROOT, 'dist/server/cli.js'), ...flags]);
    assert.deepEqual(fromDist.plugins, fromSource.plugins);
    assert.equal(fromDist.code, 0);
  });
});

describe('--api-keys-file', () => {
  const file = (name: string, text: string) => {
    const path = join(dataDir, name);
    writeFileSync(path, text);
    return path;
  };

  test('one key per line, blank lines, # comments and CRLF ignored; added to --api-keys', () => {
    const keys = file('keys.txt', '# team keys\r\nkey-from-file-1\r\n\n   \n  key-from-file-2  \n# old: revoked\n');
    assert.deepEqual(resolveSettings({ 'api-keys-file': keys, 'api-keys': 'flag-key' }, {}).apiKeys, ['flag-key', 'key-from-file-1', 'key-from-file-2']);
    assert.deepEqual(resolveSettings({}, { CHUNKD_API_KEYS_FILE: keys }).apiKeys, ['key-from-file-1', 'key-from-file-2'], 'from the environment');
  });

  const unreadable = file('unreadable.txt', 'secret-key-unreadable\n');
  chmodSync(unreadable, 0o000);
  const refusals: [string, string, RegExp][] = [
    ['a missing file', join(dataDir, 'nope.txt'), /--api-keys-file \(CHUNKD_API_KEYS_FILE\) names .*nope\.txt, but it does not exist/],
    ['a directory', dataDir, /it cannot be read \(EISDIR\)/],
    ['a file with no key', file('empty.txt', '# nothing yet\n\n'), /holds no key \(only blank lines or # comments\)/],
    ['a key with whitespace inside', file('spaced.txt', 'good-key\nsecret-half other-half\n'), /line 2: a key holds whitespace/],
    ...(process.getuid?.() === 0 ? [] : ([['an unreadable file', unreadable, /it cannot be read \(EACCES\)/]] as [string, string, RegExp][])),
  ];
  for (const [what, path, message] of refusals) {
    test(`${what}: refused, saying so and showing no key`, () => {
      assert.throws(() => resolveSettings({ 'api-keys-file': path }, {}), (e: Error) => message.test(e.message) && !/secret|good-key/.test(e.message));
    });
  }

  test('chunkd serve with a bad key file stops at start-up with exit 2 and the reason', () => {
    const res = run(['serve', '--port', '0', '--data-dir', dataDir, '--api-keys-file', file('only-comments.txt', '# secret-note\n')]);
    assert.equal(res.status, 2, res.stderr);
    assert.match(res.stderr, /--api-keys-file \(CHUNKD_API_KEYS_FILE\) names .*only-comments\.txt, which holds no key/);
    assert.doesNotMatch(res.stderr, /secret-note/);
  });

  test('a server started with a key file needs those keys, and logs none of them', async () => {
    const keys = file('serve-keys.txt', '# keys\nkey-in-a-file-7f3a\n');
    const child = await startChild(['--data-dir', dataDir, '--log-level', 'debug', '--api-keys-file', keys]);
    try {
      const call = (key?: string) => fetch(`${child.url}/v1/chunk/token`, { method: 'POST', body: '{"text": "hi"}', headers: key ? { authorization: `Bearer ${key}` } : {} }).then((r) => r.status);
      assert.equal(await call(), 401);
      assert.equal(await call('key-in-a-file-7f3a'), 200);
      assert.equal(await call('keys'), 401, 'a comment is not a key');
    } finally {
      await child.stop();
    }
    assert.doesNotMatch(child.log(), /key-in-a-file-7f3a/);
    assert.match(child.log(), /"listening"/);
  });
});
