/**
 * One throughput case in its own process: the parent forks `bench/run.ts --child suite/case`, this
 * prepares and times the case and sends back one message. A peer that throws is reported, not fatal.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pluginNames } from './chunkd.js';
import { caseLimitS, measure, peakRssMb, timing, type Measured, type Options } from './harness.js';
import { SUITES } from './suites/index.js';

export type ChildReply = { ok: Measured } | { error: string };
type Message = ChildReply | { prepared: number };

const RUN = fileURLToPath(new URL('./run.ts', import.meta.url));
export const BASELINE = '__baseline';

/**
 * Run `suite/caseId` in a fresh process (same Node flags, so the TypeScript loader comes along). A
 * case that outlives `limitS` is stopped and reported with its elapsed time as a lower bound.
 */
export function runInChild(suite: string, caseId: string, quick: boolean, limitS = caseLimitS(quick)): Promise<ChildReply> {
  return new Promise((resolve) => {
    const args = ['--child', `${suite}/${caseId}`, ...(quick ? ['--quick'] : [])];
    const child = fork(RUN, args, { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
    let reply: ChildReply | undefined;
    let prepared: { bytes: number; at: number } | undefined;
    let stderr = '';
    const timer = setTimeout(() => {
      const bytes = prepared?.bytes ?? 0;
      const ms = prepared ? performance.now() - prepared.at : limitS * 1e3;
      reply = { ok: { runs: 0, medianMs: ms, cpuMs: NaN, bytes, chunks: 0, peakRssMb: NaN } };
      child.kill();
    }, limitS * 1e3);
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('message', (m: Message) => {
      if ('prepared' in m) prepared = { bytes: m.prepared, at: performance.now() };
      else reply = m;
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(reply ?? { error: `exited with code ${code}: ${stderr.trim().split('\n').slice(-3).join(' ')}` });
    });
  });
}

/** The child side: prepare the case, time it, report, exit. */
export async function childMain(spec: string, quick: boolean): Promise<void> {
  const [suiteName, caseId] = spec.split('/') as [string, string];
  let reply: ChildReply;
  try {
    if (caseId === BASELINE) {
      reply = { ok: { runs: 0, medianMs: 0, cpuMs: 0, bytes: 0, chunks: 0, peakRssMb: peakRssMb() } };
    } else {
      const options: Options = { quick, plugins: await pluginNames() };
      const suite = SUITES.find((s) => s.name === suiteName);
      if (suite?.kind !== 'throughput') throw new Error(`no throughput suite '${suiteName}'`);
      const c = suite.cases(options).find((x) => x.id === caseId);
      if (!c) throw new Error(`no case '${caseId}' in suite '${suiteName}'`);
      const prepared = await c.prepare();
      process.send!({ prepared: prepared.bytes } satisfies Message);
      const m = await measure(prepared.run, timing(quick));
      reply = { ok: { runs: m.runs, medianMs: m.medianMs, cpuMs: m.cpuMs, bytes: prepared.bytes, chunks: m.result, peakRssMb: peakRssMb() } };
    }
  } catch (e) {
    reply = { error: e instanceof Error ? e.message.split('\n')[0]! : String(e) };
  }
  await new Promise<void>((resolve) => process.send!(reply satisfies Message, () => resolve()));
  process.exit(0);
}
