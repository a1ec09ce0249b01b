/**
 * GET /health polled every 10 ms from a process of its own, with the server's RSS read from /proc
 * at each poll: the latency it reports is the server's, not the wait of a client whose own event
 * loop is busy sending the load (a gigabyte of uploads streamed by the bench process would
 * otherwise be timed as /health latency).
 */
import { spawn } from 'node:child_process';

export interface HealthReport {
  polls: number;
  /** Slowest /health answer, from request sent to body read (ms). */
  maxMs: number;
  /** Highest RSS of the server process seen at a poll (MB). */
  rssPeakMb: number;
}

export interface HealthPoller {
  /** Stop polling and report. */
  stop(): Promise<HealthReport>;
}

// Plain JavaScript run with `node -e`: no TypeScript loader in the poller, so it starts in ~50 ms and stays small.
const SCRIPT = `
const { readFileSync } = require('node:fs');
const [url, pid] = process.argv.slice(1);
const rss = () => { try { return Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync('/proc/' + pid + '/status', 'utf8'))[1]) / 1024; } catch { return 0; } };
let stop = false, polls = 0, maxMs = 0, rssPeakMb = rss();
process.stdin.on('data', () => { stop = true; });
(async () => {
  // A process's first fetch loads its HTTP client (undici, ~50–100 ms): made before 'ready', so that
  // cost is not timed as the server's answer.
  await fetch(url + '/health').then((r) => r.arrayBuffer(), () => undefined);
  process.stdout.write('ready\\n');
  while (!stop) {
    const t = performance.now();
    await fetch(url + '/health').then((r) => r.arrayBuffer(), () => undefined);
    maxMs = Math.max(maxMs, performance.now() - t);
    polls++;
    rssPeakMb = Math.max(rssPeakMb, rss());
    await new Promise((r) => setTimeout(r, 10));
  }
  process.stdout.write(JSON.stringify({ polls, maxMs, rssPeakMb }) + '\\n');
  process.exit(0);
})();
`;

/** Start polling `url`/health (the server's process id for its RSS); resolves once the poller runs. */
export async function startHealthPoller(url: string, pid: number): Promise<HealthPoller> {
  const child = spawn(process.execPath, ['-e', SCRIPT, url, String(pid)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  const lines = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (s: string) => {
      out += s;
      if (out.startsWith('ready\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the /health poller exited with code ${code}`)));
  });
  await lines;
  return {
    stop: () =>
      new Promise<HealthReport>((resolve, reject) => {
        child.once('exit', () => {
          const last = out.trim().split('\n').at(-1) ?? '';
          try {
            resolve(JSON.parse(last) as HealthReport);
          } catch {
            reject(new Error(`the /health poller reported nothing readable: ${last}`));
          }
        });
        child.stdin.end('stop\n');
      }),
  };
}
