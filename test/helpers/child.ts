import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CLI, CLI_WITH_TS_PLUGINS } from './cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ChildServer {
  child: ChildProcess;
  url: string;
  /** Everything the server logged so far. */
  log(): string;
  /** SIGTERM (or the given signal) and wait for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `chunkd serve` (test/helpers/cli.ts) in a child process on 127.0.0.1 and a free port; resolves once it listens. */
export async function startChild(flags: string[], env: NodeJS.ProcessEnv = {}): Promise<ChildServer> {
  const args = [...(flags.includes('--plugins-dir') ? CLI_WITH_TS_PLUGINS : CLI), 'serve', '--host', '127.0.0.1', '--port', '0', ...flags];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let log = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => (log += d));
  const port = await new Promise<number>((resolve, reject) => {
    const onData = () => {
      const line = log.split('\n').find((l) => l.includes('"listening"'));
      if (line) resolve((JSON.parse(line) as { port: number }).port);
    };
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${log}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    log: () => log,
    stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
