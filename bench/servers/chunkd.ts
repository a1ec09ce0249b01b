/**
 * chunkd as `chunkd serve` runs it (same boot, app and pool), on 127.0.0.1 and a free port, in its
 * own process, with the default settings. Over IPC it reports its port once ready and, when asked, its event-loop delay since
 * the last reset (perf_hooks.monitorEventLoopDelay) and its peak RSS.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { WorkerPool } from '../../kernel/pool.js';
import { createLogger, type Level } from '../../service/logger.js';
import { serve } from '../../server/serve.js';
import { resolveSettings } from '../../service/settings.js';

export type ServerMessage = { port: number } | { delay: { maxMs: number; p99Ms: number; meanMs: number }; peakRssMb: number };

const workers = process.argv[2] ?? 'auto';
const dataDir = mkdtempSync(join(tmpdir(), 'chunkd-bench-'));
// Default settings, request log included (as deployed); the parent sends stderr to /dev/null.
const settings = resolveSettings({ host: '127.0.0.1', port: '0', workers, 'data-dir': dataDir }, {});
const running = await serve(settings, createLogger(settings.logLevel as Level));
await (running.booted.deps.executor as WorkerPool).ready;

const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
process.on('message', (m: string) => {
  if (m === 'reset') delay.reset();
  if (m === 'stats') {
    const ms = (ns: number) => ns / 1e6;
    process.send!({ delay: { maxMs: ms(delay.max), p99Ms: ms(delay.percentile(99)), meanMs: ms(delay.mean) }, peakRssMb: process.resourceUsage().maxRSS / 1024 } satisfies ServerMessage);
  }
});
process.on('disconnect', () => {
  void running.stop('bench done').finally(() => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
});
process.send!({ port: running.port } satisfies ServerMessage);
