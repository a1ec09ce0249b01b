/** `chunkd serve`: flags, --help, refusals, and a real server process from the sources and from the build. */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SETTINGS } from '../server/settings.js';

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
