/**
 * Jobs: documents/s of one job run by 1, 2 and 3 replicas sharing one PostgreSQL (real `chunkd
 * serve` processes, each with one worker thread), as ratios to one replica; and the cost per
 * document of a job (queue, storage, result lines) against the same documents sent to a direct
 * pipeline execute, on the SQLite back-end and on PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild, type ChildServer } from '../../test/helpers/child.js';
import { corpus, submitJob, waitForJob } from '../../test/helpers/jobs.js';
import { startPostgres } from '../../test/helpers/postgres.js';
import type { CustomSuite, Options, Section } from '../harness.js';
import { num, ratio, table } from '../table.js';

const STEPS = [{ type: 'chunk', chunker: 'recursive', config: { chunk_size: 256 } }];

async function timeJob(servers: ChildServer[], docs: { id: string; text: string }[]): Promise<number> {
  const t0 = performance.now();
  const sub = await submitJob(servers[0]!.url, { steps: STEPS, documents: docs });
  if (sub.status !== 202) throw new Error(`job refused: ${JSON.stringify(sub.body)}`);
  const job = await waitForJob(servers[0]!.url, sub.body.id, undefined, 20);
  if (job.status !== 'done' || job.documents.done !== docs.length) throw new Error(`job ended ${JSON.stringify(job)}`);
  return performance.now() - t0;
}

async function timeDirect(server: ChildServer, docs: { text: string }[]): Promise<number> {
  const created = await fetch(`${server.url}/v1/pipelines`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: `bench-${Date.now()}`, steps: STEPS }),
  });
  const { id } = (await created.json()) as { id: string };
  const run = async (texts: string[]) => {
    const res = await fetch(`${server.url}/v1/pipelines/${id}/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: texts }),
    });
    if (res.status !== 200) throw new Error(`execute answered ${res.status}`);
    await res.arrayBuffer();
  };
  await run(docs.map((d) => d.text)); // warm-up: the worker thread builds the plugin on its first large request
  const t0 = performance.now();
  await run(docs.map((d) => d.text));
  return performance.now() - t0;
}

export const jobsSuite: CustomSuite = {
  kind: 'custom',
  name: 'jobs',
  title: 'Jobs over replicas',
  async run(o: Options): Promise<Section> {
    const n = o.quick ? 600 : 3000;
    const docs = corpus(n, 4);
    const chars = docs.reduce((s, d) => s + d.text.length, 0);
    const postgres = await startPostgres();
    const dir = mkdtempSync(join(tmpdir(), 'chunkd-bench-jobs-'));
    const flags = (name: string, url?: string) => [
      ...(url ? ['--database-url', url] : []),
      '--data-dir',
      join(dir, name),
      '--workers',
      '1',
      '--job-batch-size',
      '32',
    ];
    const rows: (string | number)[][] = [];
    const perS = new Map<number, number>();
    let overhead: { sqlite: number; pg: number; direct: number } | undefined;
    try {
      for (const k of [1, 2, 3]) {
        const url = await postgres.createDatabase();
        const servers = [await startChild(flags('r0', url))];
        servers.push(...(await Promise.all(Array.from({ length: k - 1 }, (_, i) => startChild(flags(`r${i + 1}`, url))))));
        try {
          await timeJob(servers, docs.slice(0, 64)); // warm-up: JIT, connections, plugins
          const ms = await timeJob(servers, docs);
          perS.set(k, (n / ms) * 1000);
          if (k === 1) {
            const direct = await timeDirect(servers[0]!, docs);
            overhead = { pg: ms, direct, sqlite: 0 };
          }
        } finally {
          await Promise.all(servers.map((s) => s.stop()));
        }
      }
      const local = await startChild(flags('sqlite'));
      try {
        await timeJob([local], docs.slice(0, 64));
        overhead!.sqlite = await timeJob([local], docs);
        overhead!.direct = Math.min(overhead!.direct, await timeDirect(local, docs));
      } finally {
        await local.stop();
      }
    } finally {
      await postgres.close();
      rmSync(dir, { recursive: true, force: true });
    }
    for (const k of [1, 2, 3]) rows.push([`${k} replica${k > 1 ? 's' : ''} (PostgreSQL + pg-boss)`, num(perS.get(k)), ratio(perS.get(k)! / perS.get(1)!)]);
    const { sqlite, pg, direct } = overhead!;
    const body = [
      `One job of ${n} documents (${Math.round(chars / n)} characters on average; the recursive chunker, chunk_size 256), submitted to one replica, timed from the POST to the status \`done\` (polled every 20 ms). Each replica is a \`chunkd serve\` process with --workers 1 and --job-batch-size 32; all share one embedded PostgreSQL. This machine has ${cpus().length} cores, shared with the load generator, PostgreSQL and other work (load average at the end: ${loadavg()[0]!.toFixed(1)}), so replicas beyond the cores cannot add throughput here: the ratios show the queue spreading work, not a many-machine figure.`,
      '',
      table(['setup', 'documents/s', 'vs 1 replica'], rows),
      '',
      `Per-document overhead of a job against a direct execute of the same ${n} documents (one \`POST /v1/pipelines/{id}/execute\` with them as a list, ${num(direct)} ms): SQLite in-process job ${num(sqlite)} ms → **${num(((sqlite - direct) / n) * 1000)} µs/document**; PostgreSQL job on 1 replica ${num(pg)} ms → **${num(((pg - direct) / n) * 1000)} µs/document** (storing documents and results, queue round trips, the 20 ms poll).`,
    ].join('\n');
    return { title: this.title, body, checks: [] };
  },
};
