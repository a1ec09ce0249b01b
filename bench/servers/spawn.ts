/** Start a bench server in its own process and talk to it over IPC. */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { fileURLToPath } from 'node:url';
import type { ServerMessage } from './chunkd.js';

export interface BenchServer {
  url: string;
  child: ChildProcess;
  /** Ask the chunkd server for its event-loop delay since the last reset (and reset it first if asked). */
  stats(): Promise<Extract<ServerMessage, { delay: unknown }>>;
  reset(): void;
  stop(): Promise<void>;
}

export function startServer(name: 'echo' | 'koa-echo' | 'chunkd', args: string[] = []): Promise<BenchServer> {
  return serverProcess(name, fileURLToPath(new URL(`./${name}.ts`, import.meta.url)), args, process.execArgv);
}

async function serverProcess(name: string, file: string, args: string[], execArgv: string[], env = process.env): Promise<BenchServer> {
  // stderr carries chunkd's request log: discarded, but written, as a deployed server writes it.
  const child = fork(file, args, { execArgv, env, stdio: ['ignore', 'inherit', name === 'chunkd' ? 'ignore' : 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`the ${name} server exited with code ${code} before listening`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    reset: () => child.send('reset'),
    stats: () =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve(m as Extract<ServerMessage, { delay: unknown }>));
        child.send('stats');
      }),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let built = false;

/**
 * chunkd as `npm start` runs it: built first (its prestart step, once per bench run), then started
 * from dist/ by bench/servers/chunkd.ts --built, itself built to JavaScript, with these arguments.
 */
export function startBuiltChunkd(args: string[] = []): Promise<BenchServer> {
  if (!built) {
    execFileSync(join(ROOT, 'node_modules', '.bin', 'tsup'), ['--silent'], { cwd: ROOT, stdio: 'inherit' });
    // The bench's own server script, made JavaScript too: run under plain node, with no TypeScript
    // loader in the process or its worker threads (the loader holds ~120 MB that npm start does not).
    buildSync({
      entryPoints: [fileURLToPath(new URL('./chunkd.ts', import.meta.url))],
      outfile: BUILT_SERVER,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'warning',
    });
    built = true;
  }
  return serverProcess('chunkd', BUILT_SERVER, ['--built', ...args], [], { ...process.env, CHUNKD_BENCH_DIST: join(ROOT, 'dist') });
}

const BUILT_SERVER = join(ROOT, 'dist', 'bench-server.mjs');
