/**
 * Capacity: the cost of one document, measured, for docs/scaling.md.
 * - CPU-seconds per MB of input for every chunker that runs offline, on one thread of one replica
 *   (the kernel's own path, the runner), with its defaults and with gpt2 token counting;
 * - per document of a job on PostgreSQL (one in-process replica, inline steps): database round trips
 *   (every query the pg driver sends, chunkd's and pg-boss's), transactions, WAL bytes, rows, bytes
 *   stored per table, PostgreSQL CPU and the replica's CPU; for the submit, the run and the results read;
 * - results storage per MB of input at chunk sizes 256, 512 and 1024 gpt2 tokens.
 * CPU is counted (process.cpuUsage, /proc for PostgreSQL's processes), not timed: on a shared
 * machine it moves far less than wall time does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { startApp, type TestApp } from '../../test/helpers/app.js';
import { jobResults, submitJob } from '../../test/helpers/jobs.js';
import { startPostgres } from '../../test/helpers/postgres.js';
import { loadRegistry, runChunks } from '../chunkd.js';
import { codeFiles, markdownDocs, prose } from '../corpora.js';
import type { CustomSuite, Options, Section } from '../harness.js';
import { num, table } from '../table.js';

const MB = 1e6;
const STATS_WAIT_MS = 11_000;
const CHUNK_SIZES = [256, 512, 1024];
/** Characters per document of a job: a page or two of prose. */
const DOC_CHARS = 4000;

/** Seconds of CPU this process has used (user + system). */
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** Seconds of CPU used so far by the PostgreSQL server whose backend `pid` is (its postmaster and every child alive now). */
function pgCpuSeconds(backendPid: number): number {
  const stat = (pid: number | string) => {
    try {
      const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' '); // fields from 3 (state) on
      return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) };
    } catch {
      return undefined;
    }
  };
  const postmaster = stat(backendPid)?.ppid;
  if (!postmaster) return NaN;
  let ticks = stat(postmaster)?.ticks ?? 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const s = stat(pid);
    if (s?.ppid === postmaster) ticks += s.ticks;
  }
  return ticks / 100; // USER_HZ
}

// Every query the pg driver sends from this process (chunkd's stores and pg-boss share its pool), except the monitor's.
let queries = 0;
/** Queries the monitor sent: each is a transaction of its own, which pg_stat_database counts too. */
let monitorQueries = 0;
let monitor: pg.Client | undefined;
const query = pg.Client.prototype.query;

/** Count the driver's queries while `work` runs (only then: other suites share this process). */
async function countingQueries<T>(work: () => Promise<T>): Promise<T> {
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    if (this === monitor) monitorQueries++;
    else queries++;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pg.Client.prototype.query;
  try {
    return await work();
  } finally {
    pg.Client.prototype.query = query;
  }
}

/** What is read the moment a phase ends: exact, and free of the idle wait that follows. */
interface Snapshot {
  queries: number;
  monitorQueries: number;
  wal: bigint;
  pgCpu: number;
  cpu: number;
  bytes: Record<string, number>;
}

/** A phase's end, then (after the wait statistics need) pg_stat_database, then the same snapshot again. */
interface Counters {
  end: Snapshot;
  /** The query counts just before pg_stat_database was read. */
  atStats: { queries: number; monitorQueries: number };
  commits: number;
  inserted: number;
  updated: number;
  deleted: number;
  after: Snapshot;
}

const TABLES = { documents: 'chunkd_job_documents', results: 'chunkd_job_results', jobs: 'chunkd_jobs' };

async function snapshot(db: pg.Client, backend: number): Promise<Snapshot> {
  const q = queries;
  const m = monitorQueries;
  const cpu = cpuSeconds();
  const pgCpu = pgCpuSeconds(backend);
  const wal = (await db.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn;
  const [hi, lo] = wal.split('/').map((h) => BigInt(`0x${h}`));
  const bytes: Record<string, number> = {};
  for (const [key, name] of Object.entries(TABLES)) bytes[key] = Number((await db.query('SELECT pg_total_relation_size($1::regclass) AS b', [name])).rows[0].b);
  bytes.queue = Number(
    (
      await db.query(
        "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS b FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'pgboss' AND c.relkind IN ('r', 'p')",
      )
    ).rows[0].b,
  );
  return { queries: q, monitorQueries: m, wal: (hi! << 32n) + lo!, pgCpu, cpu, bytes };
}

async function counters(db: pg.Client, backend: number): Promise<Counters> {
  const end = await snapshot(db, backend);
  // Statistics reach pg_stat_database when a backend flushes them: a backend that flushed less than a
  // second ago waits until it has been idle for 10 s (PostgreSQL 15 and later).
  await new Promise((r) => setTimeout(r, STATS_WAIT_MS));
  const atStats = { queries, monitorQueries };
  const s = (await db.query('SELECT xact_commit, tup_inserted, tup_updated, tup_deleted FROM pg_stat_database WHERE datname = current_database()')).rows[0];
  const after = await snapshot(db, backend);
  return {
    end,
    atStats,
    commits: Number(s.xact_commit),
    inserted: Number(s.tup_inserted),
    updated: Number(s.tup_updated),
    deleted: Number(s.tup_deleted),
    after,
  };
}

/**
 * A phase runs from `a.after` to `b.end`: exact counts and bytes over that span. The statistics
 * span it plus b's wait, in which the replica's idle consumers poll the queue (each poll one
 * transaction, no rows) and the monitor reads: those transactions are taken off the commits.
 */
const delta = (a: Counters, b: Counters) => {
  const idle = b.atStats.queries - b.end.queries + (a.after.queries - a.atStats.queries);
  const monitorSpan = b.atStats.monitorQueries - a.atStats.monitorQueries;
  return {
    queries: b.end.queries - a.after.queries,
    commits: b.commits - a.commits - idle - monitorSpan,
    wal: Number(b.end.wal - a.after.wal),
    inserted: b.inserted - a.inserted,
    updated: b.updated - a.updated,
    pgCpu: b.end.pgCpu - a.after.pgCpu,
    cpu: b.end.cpu - a.after.cpu,
    bytes: Object.fromEntries(Object.keys(b.end.bytes).map((k) => [k, b.end.bytes[k]! - a.after.bytes[k]!])),
  };
};
type Delta = ReturnType<typeof delta>;

/** n documents of about DOC_CHARS characters of prose each, all different. */
function documents(n: number): { id: string; text: string }[] {
  const all = prose(n * DOC_CHARS * 1.05);
  return Array.from({ length: n }, (_, i) => ({ id: `doc-${i}`, text: all.slice(i * DOC_CHARS, (i + 1) * DOC_CHARS) }));
}

/** CPU-seconds per MB (UTF-8) for each chunker that runs here with its defaults. */
async function chunkerCpu(o: Options): Promise<(string | number)[][]> {
  const registry = await loadRegistry();
  const rows: (string | number)[][] = [];
  const bytes = o.quick ? 200_000 : 1_000_000;
  for (const plugin of registry.list('chunker')) {
    const configs: [string, Record<string, unknown>][] = [['defaults', {}]];
    if ('tokenizer' in plugin.manifest.config.properties) configs.push(['tokenizer gpt2', { tokenizer: 'gpt2' }]);
    for (const [label, config] of configs) {
      const texts = plugin.name === 'code' ? codeFiles(bytes) : plugin.name === 'table' ? markdownDocs(bytes) : splitDocs(prose(bytes));
      const size = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
      if (plugin.manifest.network) {
        rows.push([plugin.name, label, '—', '—', 'not run: calls an LLM over the network (its cost is the LLM’s)']);
        continue;
      }
      if (plugin.name === 'neural') {
        // test/helpers/app.ts (imported here) points the Hugging Face cache at a tiny test classifier named as the default model.
        rows.push([plugin.name, label, '—', '—', 'not run: no Chonky model is installed here (a tiny test double answers to its name in this process)']);
        continue;
      }
      try {
        const validated = plugin.validateConfig({ ...config }, ['config']);
        await runChunks(plugin, validated, [texts[0]!.slice(0, 16_000)]); // warm-up: build the plugin, load its model, JIT
        const before = cpuSeconds();
        const chunks = (await runChunks(plugin, validated, texts)).reduce((n, l) => n + l.length, 0);
        const seconds = cpuSeconds() - before;
        const sPerMb = seconds / (size / MB);
        rows.push([plugin.name, label, num(sPerMb), num(1 / sPerMb), `${num(size / MB)} MB → ${chunks} chunks`]);
      } catch (e) {
        rows.push([plugin.name, label, '—', '—', `not run: ${(e as Error).message.slice(0, 120)}…`]);
      }
    }
  }
  return rows;
}

/** Prose as documents of about DOC_CHARS characters (a chunker's cost per document includes its per-call work). */
const splitDocs = (text: string) => Array.from({ length: Math.ceil(text.length / DOC_CHARS) }, (_, i) => text.slice(i * DOC_CHARS, (i + 1) * DOC_CHARS));

interface JobRun {
  chunkSize: number;
  n: number;
  inputBytes: number;
  /** From before the POST to the status done: the documents stored, queued, run, their results stored. */
  job: Delta;
  read: Delta;
  wallS: number;
  chunks: number;
  resultBytes: number;
  lineBytes: number;
}

async function runJob(app: TestApp, db: pg.Client, backend: number, docs: { id: string; text: string }[], chunkSize: number): Promise<JobRun> {
  const steps = [{ type: 'chunk', chunker: 'recursive', config: { chunk_size: chunkSize, tokenizer: 'gpt2' } }];
  const c0 = await counters(db, backend);
  const t0 = performance.now();
  const sub = await submitJob(app.url, { steps, documents: docs });
  if (sub.status !== 202) throw new Error(`job refused: ${JSON.stringify(sub.body)}`);
  const id = sub.body.id as string;
  for (;;) {
    const row = (await db.query('SELECT status, done, failed FROM chunkd_jobs WHERE id = $1', [id])).rows[0];
    if (row && !['queued', 'running'].includes(row.status)) {
      if (row.done !== docs.length) throw new Error(`job ended ${JSON.stringify(row)}`);
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const wallS = (performance.now() - t0) / 1e3;
  const c2 = await counters(db, backend);
  const results = await jobResults(app.url, id);
  if (results.status !== 200 || results.lines.length !== docs.length) throw new Error(`results: ${results.status}, ${results.lines.length} lines`);
  const c3 = await counters(db, backend);
  const chunks = results.lines.reduce((n, l) => n + (l.chunks?.length ?? 0), 0);
  const lineBytes = Number((await db.query('SELECT sum(octet_length(line)) AS b FROM chunkd_job_results WHERE job_id = $1', [id])).rows[0].b);
  const job = delta(c0, c2);
  return {
    chunkSize,
    n: docs.length,
    inputBytes: docs.reduce((s, d) => s + Buffer.byteLength(d.text), 0),
    job,
    read: delta(c2, c3),
    wallS,
    chunks,
    resultBytes: job.bytes.results!,
    lineBytes,
  };
}

export const capacitySuite: CustomSuite = {
  kind: 'custom',
  name: 'capacity',
  title: 'Capacity: the cost of one document',
  async run(o: Options): Promise<Section> {
    const cpuRows = await chunkerCpu(o);
    const n = o.quick ? 200 : 1000;
    const docs = documents(n);
    const postgres = await startPostgres();
    const runs: JobRun[] = [];
    let app: TestApp | undefined;
    try {
      const url = await postgres.createDatabase();
      app = await startApp({ 'database-url': url, 'job-batch-size': '32' });
      monitor = new pg.Client({ connectionString: url });
      await monitor.connect();
      const backend = (await monitor.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
      await countingQueries(async () => {
        await runJob(app!, monitor!, backend, docs.slice(0, 64), 512); // warm-up: connections, plugin, JIT
        for (const size of CHUNK_SIZES) runs.push(await runJob(app!, monitor!, backend, docs, size));
      });
    } finally {
      await monitor?.end();
      monitor = undefined;
      await app?.close();
      await postgres.close();
    }
    const per = (x: number, r: JobRun) => x / r.n;
    const jobRows = runs.flatMap((r) =>
      (['job', 'read'] as const).map((phase) => {
        const d = r[phase];
        return [
          `${r.chunkSize} tokens: ${phase}`,
          num(per(d.queries, r)),
          num(per(d.commits, r)),
          num(per(d.wal, r) / 1e3),
          num(per(d.inserted, r)),
          num(per(d.updated, r)),
          num(per(d.bytes.documents! + d.bytes.results! + d.bytes.jobs! + d.bytes.queue!, r) / 1e3),
          num(per(d.pgCpu, r) * 1e3),
          num(per(d.cpu, r) * 1e3),
        ];
      }),
    );
    const storageRows = runs.map((r) => [
      r.chunkSize,
      num(r.chunks / r.n),
      num(r.lineBytes / (r.inputBytes / MB) / MB),
      num(r.resultBytes / (r.inputBytes / MB) / MB),
      num(r.job.bytes.documents! / (r.inputBytes / MB) / MB),
      num(r.n / r.wallS),
    ]);
    // Where it saturates, from the middle chunk size: a PostgreSQL core and a replica core, each busy only with this work.
    const mid = runs.find((r) => r.chunkSize === 512)!;
    const pgMs = (mid.job.pgCpu / mid.n) * 1e3;
    const replicaMs = (mid.job.cpu / mid.n) * 1e3;
    const perPgCore = 1e3 / pgMs;
    const capRows = [
      ['documents/s one PostgreSQL core sustains (1000 / its CPU ms per document)', num(perPgCore)],
      ['documents/s one replica core sustains (1000 / its CPU ms per document, job path)', num(1e3 / replicaMs)],
      ['replica cores one PostgreSQL core keeps busy', num(replicaMs / pgMs)],
      ['round trips/s at that rate', num(perPgCore * (mid.job.queries / mid.n))],
      ['transactions committed/s at that rate', num(perPgCore * (mid.job.commits / mid.n))],
      ['WAL MB/s at that rate', num((perPgCore * (mid.job.wal / mid.n)) / MB)],
      [
        'database growth MB/s at that rate (documents, results, queue)',
        num((perPgCore * ((mid.job.bytes.documents! + mid.job.bytes.results! + mid.job.bytes.jobs! + mid.job.bytes.queue!) / mid.n)) / MB),
      ],
    ];
    const body = [
      `Measured on this machine: ${cpus().length} cores shared with other work at the time (load average at the end: ${loadavg()[0]!.toFixed(1)}). CPU is counted, not timed, so it moves less than wall time; the wall-clock rates are for orientation only.`,
      '',
      `**CPU per MB, one thread of one replica** (the kernel's path, the runner; prose cut into documents of ${DOC_CHARS} characters; code: JavaScript sources; table: package READMEs):`,
      '',
      table(['chunker', 'config', 'CPU-s per MB', 'MB per CPU-s', 'input'], cpuRows),
      '',
      `**Per document of a job on PostgreSQL** (one in-process replica, --workers 0, --job-batch-size 32; ${n} documents of ${DOC_CHARS} characters; the recursive chunker with gpt2 tokens; counters read before and after each phase: job = from the POST /v1/jobs to the status done, read = GET /v1/jobs/{id}/results whole). Round trips: every query the pg driver sent (chunkd's and pg-boss's) from the start of a phase to its end. Commits and rows: pg_stat_database, read after the 11 s its statistics may lag, less the transactions of that wait (the idle replica's queue polls, this suite's own reads). Bytes stored: growth of the job tables and of pg-boss's tables. PostgreSQL CPU: its processes' CPU (/proc).`,
      '',
      table(['run, phase', 'round trips', 'commits', 'WAL KB', 'rows inserted', 'rows updated', 'KB stored', 'PostgreSQL CPU ms', 'replica CPU ms'], jobRows),
      '',
      '**Storage per MB of input** (the same jobs): result lines as stored (their JSON, all chunk fields), the results table on disk (with its index and TOAST), the document texts on disk.',
      '',
      table(
        [
          'chunk size (gpt2 tokens)',
          'chunks per document',
          'result JSON MB per input MB',
          'results table MB per input MB',
          'documents table MB per input MB',
          'documents/s (wall, 1 replica)',
        ],
        storageRows,
      ),
      '',
      `**Where it saturates** (from the 512-token job: ${num(pgMs)} ms of PostgreSQL CPU and ${num(replicaMs)} ms of replica CPU per document):`,
      '',
      table(['figure', 'value'], capRows),
    ].join('\n');
    return { title: this.title, body, checks: [] };
  },
};
