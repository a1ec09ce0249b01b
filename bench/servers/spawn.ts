/** Start a bench server in its own process and talk to it over IPC. */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
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

export async function startServer(name: 'echo' | 'koa-echo' | 'chunkd', args: string[] = []): Promise<BenchServer> {
  const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  // stderr carries chunkd's request log: discarded, but written, as a deployed server writes it.
  const child = fork(file, args, { execArgv: process.execArgv, stdio: ['ignore', 'inherit', name === 'chunkd' ? 'ignore' : 'inherit', 'ipc'] });
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
 * from dist/ (bench/servers/chunkd.ts --built), with these arguments.
 */
export function startBuiltChunkd(args: string[] = []): Promise<BenchServer> {
  if (!built) execFileSync(join(ROOT, 'node_modules', '.bin', 'tsup'), ['--silent'], { cwd: ROOT, stdio: 'inherit' });
  built = true;
  return startServer('chunkd', ['--built', ...args]);
}
