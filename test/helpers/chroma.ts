import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Engine } from './handshake-suite.js';

/** Heartbeat polls before the server is called dead (about 30 s at 100 ms each: a cold start on a busy machine). */
const POLLS = 300;
const POLL_MS = 100;

/** A port nothing listens on now (the kernel's choice for port 0, released for the server to take). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The `chroma` command of the installed chromadb package (its bin, which runs the server in the native bindings). */
function chromaCli(): string {
  const main = createRequire(import.meta.url).resolve('chromadb');
  // main is <package>/dist/cjs/chromadb.cjs; the bin is <package>/dist/cli.mjs.
  return join(dirname(dirname(main)), 'cli.mjs');
}

/**
 * A real Chroma server (`chroma run` from the chromadb package), on 127.0.0.1 at a free port with
 * its data in a temporary directory, answering its heartbeat. When it does not start, this throws
 * with what it printed, so the tests that need it fail and say why.
 */
export async function chromaEngine(): Promise<Engine & { url: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-chroma-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [chromaCli(), 'run', '--path', join(dir, 'data'), '--host', '127.0.0.1', '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (b: Buffer) => (output = (output + b.toString()).slice(-4000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exited: string | undefined;
  const gone = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = `exited with ${signal ?? `code ${code}`}`;
      resolve();
    }),
  );
  child.once('error', (e) => (exited = `could not be spawned (${e.message})`));

  const stop = async () => {
    if (!exited) {
      child.kill('SIGTERM');
      await gone;
    }
    rmSync(dir, { recursive: true, force: true });
  };

  for (let poll = 0; poll < POLLS && !exited; poll++) {
    const ok = await fetch(`${url}/api/v2/heartbeat`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { url, config: { url }, stop };
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  const why = exited ?? `did not answer ${url}/api/v2/heartbeat after ${POLLS} polls`;
  await stop();
  throw new Error(
    `The Chroma server (chroma run, from the chromadb package and its native bindings chromadb-js-bindings-*) ${why}. ` +
      `The bindings need a glibc at least as new as the one they were built on (npm ls chromadb-js-bindings-linux-x64-gnu; ldd --version). Its output:\n${output.replace(/\x1b\[[0-9;]*m/g, '').trim()}`,
  );
}
