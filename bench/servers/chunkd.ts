/**
 * chunkd as `chunkd serve` runs it (same boot, app and pool), on 127.0.0.1 and a free port, in its
 * own process, with the default settings. With `--built` it runs the built server (dist/, what
 * `npm start` runs) instead of the TypeScript sources: tsx compiles every function with a `__name`
 * wrapper (esbuild's keepNames), a call per closure made, which the built files do not pay per
 * request. Over IPC it reports its port once ready and, when asked, its event-loop delay since
 * the last reset (perf_hooks.monitorEventLoopDelay) and its peak RSS.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { WorkerPool } from '../../kernel/engine/index.js';
import type { Level } from '../../service/logger.js';

const built = process.argv.includes('--built');
// Built, this script runs from a JavaScript copy (bench/servers/spawn.ts startBuiltChunkd), told where dist/ is.
const from = (path: string) => (built ? pathToFileURL(join(process.env.CHUNKD_BENCH_DIST!, `${path}.js`)).href : `../../${path}.js`);
const { createLogger } = (await import(from('service/logger'))) as typeof import('../../service/logger.js');
const { serve } = (await import(from('server/serve'))) as typeof import('../../server/serve.js');
const { resolveSettings } = (await import(from('service/settings'))) as typeof import('../../service/settings.js');

export type ServerMessage = { port: number } | { delay: { maxMs: number; p99Ms: number; meanMs: number }; peakRssMb: number };

const workers = process.argv.slice(2).find((a) => a !== '--built') ?? 'auto';
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
    process.send!({
      delay: { maxMs: ms(delay.max), p99Ms: ms(delay.percentile(99)), meanMs: ms(delay.mean) },
      peakRssMb: process.resourceUsage().maxRSS / 1024,
    } satisfies ServerMessage);
  }
});
process.on('disconnect', () => {
  void running.stop('bench done').finally(() => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
});
process.send!({ port: running.port } satisfies ServerMessage);
