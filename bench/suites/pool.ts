/**
 * The worker pool: (1) a batch of two large documents on 2 threads against 1 (what --workers sets),
 * through the kernel's executor; (2) the event loop while a 10 MB job runs in a real server: its
 * delay (perf_hooks.monitorEventLoopDelay, inside the server) and the latency of GET /health polled
 * meanwhile, with the pool and, for contrast, with everything on the event loop (--workers 0).
 */
import { fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { benchRunner, loadRegistry } from '../chunkd.js';
import { prose } from '../corpora.js';
import { median, type Check, type CustomSuite, type Options, type Section } from '../harness.js';
import { startServer } from '../servers/spawn.js';
import { fmtSize, num, ratio, table } from '../table.js';
import { WorkerPool } from '../../kernel/engine/index.js';

const CONFIG = { tokenizer: 'cl100k_base', chunk_size: 512 };
const SPEEDUP = 1.7;
const HEALTH_MS = 50;

/** CPU time of each thread of this process (Linux /proc), in ms by thread id; empty where /proc is not readable. */
function threadCpuMs(): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, ((Number(fields[11]) + Number(fields[12])) * 1000) / 100); // utime + stime, clock ticks (USER_HZ 100)
    }
  } catch {
    /* not Linux: no per-thread figures */
  }
  return out;
}

/**
 * The CPU time of the busiest thread over `fn`: with the batch split across the pool's threads,
 * the critical path. A neighbour's load on the shared cores stretches wall time, not a thread's
 * CPU time, so the ratio of these across pool sizes is the scaling the pool itself achieves.
 */
async function busiestThreadMs(fn: () => Promise<void>): Promise<number | undefined> {
  const before = threadCpuMs();
  await fn();
  const after = threadCpuMs();
  const deltas = [...after].map(([tid, ms]) => ms - (before.get(tid) ?? 0));
  return deltas.length ? Math.max(...deltas) : undefined;
}

/**
 * The same batch on a 1-thread and a 2-thread pool, alternating in rounds (a busy neighbour then
 * slows both sides of a round, not one side of the whole comparison): the median time of each, and
 * the median of the rounds' ratios, by wall time and by the busiest thread's CPU time.
 */
async function batchScaling(
  docs: string[],
  quick: boolean,
): Promise<{ one: number; two: number; speedup: number; cpuOne?: number; cpuTwo?: number; cpuSpeedup?: number }> {
  const registry = await loadRegistry();
  const plugin = registry.get('chunker', 'token');
  const config = plugin.validateConfig({ ...CONFIG }, ['config']);
  const pools = [new WorkerPool({ threads: 1, warm: [plugin.source] }), new WorkerPool({ threads: 2, warm: [plugin.source] })] as const;
  const run = async (pool: WorkerPool) => {
    const t = performance.now();
    const cpu = await busiestThreadMs(
      async () => void (await benchRunner(pool).answer({ steps: [{ plugin, config }], unit: 'codepoint', returnType: 'chunks' }, docs, { list: true })),
    );
    return { s: (performance.now() - t) / 1e3, cpuS: cpu === undefined ? undefined : cpu / 1e3 };
  };
  try {
    await Promise.all(pools.map((p) => p.ready));
    for (const pool of pools) await run(pool); // warm-up: JIT, encoders
    const ones: { s: number; cpuS?: number }[] = [];
    const twos: { s: number; cpuS?: number }[] = [];
    for (let round = 0; round < (quick ? 1 : 7); round++) {
      ones.push(await run(pools[0]));
      twos.push(await run(pools[1]));
    }
    const cpuPairs = ones.flatMap((o, i) => (o.cpuS && twos[i]!.cpuS ? [o.cpuS / twos[i]!.cpuS!] : []));
    return {
      one: median(ones.map((o) => o.s)),
      two: median(twos.map((o) => o.s)),
      speedup: median(ones.map((o, i) => o.s / twos[i]!.s)),
      ...(cpuPairs.length ? { cpuOne: median(ones.map((o) => o.cpuS!)), cpuTwo: median(twos.map((o) => o.cpuS!)), cpuSpeedup: median(cpuPairs) } : {}),
    };
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
}

interface HealthRun {
  workers: string;
  jobS: number;
  polls: number[];
  /** Polls that got no answer: with the loop blocked longer than the keep-alive timeout (5 s), the server closes an idle connection a poll was just sent on. */
  failed: number;
  delay: { maxMs: number; p99Ms: number; meanMs: number };
  status: number;
}

async function healthDuringJob(workers: string, jobBytes: number): Promise<HealthRun> {
  const server = await startServer('chunkd', [workers]);
  const client = fork(
    fileURLToPath(new URL('../servers/job-client.ts', import.meta.url)),
    [`${server.url}/v1/chunk/token`, String(jobBytes), JSON.stringify(CONFIG)],
    {
      execArgv: process.execArgv,
    },
  );
  try {
    await new Promise((resolve) => client.once('message', resolve));
    for (let i = 0; i < 5; i++) await fetch(`${server.url}/health`).then((r) => r.arrayBuffer());
    server.reset();
    const began = performance.now();
    let done = false;
    const job = new Promise<number>((resolve) => {
      client.once('message', (m) => resolve((m as { status: number }).status));
      client.once('exit', () => resolve(0));
    }).finally(() => (done = true));
    client.send('go');
    const polls: number[] = [];
    let failed = 0;
    while (!done) {
      const t = performance.now();
      const answered = await fetch(`${server.url}/health`)
        .then((r) => r.arrayBuffer())
        .then(
          () => true,
          () => false,
        );
      if (answered) polls.push(performance.now() - t);
      else failed++;
      await new Promise((r) => setTimeout(r, 10));
    }
    const status = await job;
    const jobS = (performance.now() - began) / 1e3;
    const { delay } = await server.stats();
    return { workers, jobS, polls, failed, delay, status };
  } finally {
    client.kill();
    await server.stop();
  }
}

export const poolSuite: CustomSuite = {
  kind: 'custom',
  name: 'pool',
  title: 'Worker pool',
  async run(o: Options): Promise<Section> {
    const docBytes = o.quick ? 256_000 : 4e6;
    const docs = [prose(docBytes, 0), prose(docBytes, 25_000)];
    const { one, two, speedup, cpuOne, cpuTwo, cpuSpeedup } = await batchScaling(docs, o.quick);

    const jobBytes = o.quick ? 2e6 : 10e6;
    const runs = [await healthDuringJob('2', jobBytes), await healthDuringJob('0', jobBytes)];
    const pooled = runs[0]!;
    const maxPoll = pooled.polls.length ? Math.max(...pooled.polls) : undefined;

    const body = [
      `**Batch scaling.** Two documents of ${fmtSize(docBytes)} of prose in one batch, the token chunker (${CONFIG.tokenizer}, chunk_size ${CONFIG.chunk_size}), through the kernel's WorkerPool (the executor \`--workers\` sizes); after a warm-up, ${o.quick ? 1 : 7} rounds that each run the batch on 1 thread then on 2: median times, and the median of the rounds' speed-ups. Beside wall time, the CPU time of the busiest thread over the batch (per thread, from /proc/self/task): the critical path of the split batch, which a neighbour's load on the shared cores does not stretch; the target judges the speed-up by it.`,
      '',
      table(
        ['workers', 'batch time (s)', 'busiest thread CPU (s)', 'speed-up by CPU', 'by wall time'],
        [
          [1, num(one), num(cpuOne), '1×', '1×'],
          [2, num(two), num(cpuTwo), ratio(cpuSpeedup), ratio(speedup)],
        ],
      ),
      '',
      `**Event loop during a ${fmtSize(jobBytes)} job.** A real server (\`chunkd serve\`'s boot) gets one POST /v1/chunk/token with ${fmtSize(jobBytes)} of prose (${CONFIG.tokenizer}); meanwhile GET /health is polled every 10 ms from another process than the one sending the job (so the client's own handling of the 10 MB body and answer is not timed as the server's). The event-loop delay is measured inside the server with perf_hooks.monitorEventLoopDelay over the whole job.`,
      '',
      table(
        ['--workers', 'job (s)', 'status', '/health polls', '/health p50 (ms)', '/health max (ms)', 'loop delay p99 (ms)', 'loop delay max (ms)'],
        runs.map((r) => [
          r.workers,
          num(r.jobS),
          r.status,
          r.failed ? `${r.polls.length} (+${r.failed} unanswered)` : r.polls.length,
          num(median(r.polls)),
          num(Math.max(...r.polls)),
          num(r.delay.p99Ms),
          num(r.delay.maxMs),
        ]),
      ),
      '',
      '`--workers 0` runs the job on the event loop: shown to make plain what the pool buys.',
    ].join('\n');
    const checks: Check[] = [
      {
        what: `batch of 2 large documents: 2 workers ≥ ${SPEEDUP}× 1 worker`,
        measured: cpuSpeedup === undefined ? `${ratio(speedup)} wall (no per-thread CPU here)` : `${ratio(cpuSpeedup)} CPU (wall ${ratio(speedup)})`,
        met: (cpuSpeedup ?? speedup) >= SPEEDUP,
      },
      {
        what: `/health answers in < ${HEALTH_MS} ms while a 10 MB job runs`,
        measured:
          maxPoll === undefined
            ? undefined
            : `max ${num(maxPoll)} ms (loop delay max ${num(pooled.delay.maxMs)} ms)${pooled.failed ? `, ${pooled.failed} polls unanswered` : ''}`,
        met: maxPoll === undefined || pooled.status !== 200 ? undefined : maxPoll < HEALTH_MS && pooled.failed === 0,
        note: pooled.status !== 200 ? `the job answered ${pooled.status}` : 'the job finished before /health was polled',
      },
    ];
    return { title: this.title, body, checks };
  },
};
