import { hostname } from 'node:os';
import type pg from 'pg';
import PgBoss from 'pg-boss';
import { ChunkdError } from '../../kernel/errors.js';
import type { Logger } from '../logger.js';
import type { ExecuteDeps } from '../pipelines/execute.js';
import type { Migration } from '../storage/migrations.js';
import { migratePg, withMigrationLock } from '../storage/pg-migrate.js';
import { asStorageError, asUnavailable } from '../storage/pg-pool.js';
import { logStoreWait, runBatch, type BatchDocument } from './run.js';
import { nextTry, type WaitState } from './store-wait.js';
import { StoreWait } from '../stores/write-batch.js';
import { contiguous } from './sqlite.js';
import {
  capped,
  documentBytes,
  errorLine,
  FAILURES_MAX,
  gaveUp,
  JobQuotaError,
  quotaReached,
  RETRY_LIMIT,
  type JobDocument,
  type JobIntake,
  type JobMeta,
  type JobRun,
  type JobStore,
  type JobView,
  type ResultLine,
  type StoreLimits,
} from './store.js';
import { finalStatus, toView, type JobRow } from './view.js';

/** The pg-boss queue of batches: one message = one job's document indexes [from, to). */
export const QUEUE = 'chunkd-job-batches';

/**
 * The jobs schema as numbered steps, recorded in chunkd_migrations under 'jobs' and only ever
 * appended (migratePg applies them under its lock, so replicas starting together do not race).
 * Step 1 is IF NOT EXISTS: databases made before the jobs were versioned already hold these tables.
 */
export const JOB_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE IF NOT EXISTS chunkd_jobs (
        id text PRIMARY KEY, status text NOT NULL, pipeline_id text, steps text NOT NULL, offset_unit text NOT NULL,
        total integer NOT NULL, done integer NOT NULL DEFAULT 0, failed integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL, started_at timestamptz, finished_at timestamptz, expires_at timestamptz
      );
      CREATE TABLE IF NOT EXISTS chunkd_job_documents (
        job_id text NOT NULL REFERENCES chunkd_jobs (id) ON DELETE CASCADE, idx integer NOT NULL, doc_id text NOT NULL, text text NOT NULL,
        PRIMARY KEY (job_id, idx)
      );
      CREATE TABLE IF NOT EXISTS chunkd_job_results (
        job_id text NOT NULL REFERENCES chunkd_jobs (id) ON DELETE CASCADE, idx integer NOT NULL, ok boolean NOT NULL, line text NOT NULL,
        replica text NOT NULL, PRIMARY KEY (job_id, idx)
      );
    `,
  },
  {
    // The jobs storage quota (--max-jobs-bytes): each job's documents plus results, in bytes.
    version: 2,
    sql: 'ALTER TABLE chunkd_jobs ADD COLUMN IF NOT EXISTS bytes bigint NOT NULL DEFAULT 0',
  },
  {
    // A document's name and the user's metadata (JSON), for a write step's rows.
    version: 3,
    sql: 'ALTER TABLE chunkd_job_documents ADD COLUMN IF NOT EXISTS meta text',
  },
  {
    // An uploaded file's chef and structure (JSON), so a process step of that chef answers it as the upload read it.
    version: 4,
    sql: 'ALTER TABLE chunkd_job_documents ADD COLUMN IF NOT EXISTS chef text, ADD COLUMN IF NOT EXISTS structure text',
  },
];

/** Bytes a document takes in chunkd_job_documents, as documentBytes counts them. */
const DOC_BYTES_SQL =
  'octet_length(text) + octet_length(doc_id) + coalesce(octet_length(meta), 0) + coalesce(octet_length(chef), 0) + coalesce(octet_length(structure), 0)';

/** The transaction lock every growth of the jobs' bytes takes: the quota is reserved atomically across replicas. */
const QUOTA_LOCK = "SELECT pg_advisory_xact_lock(hashtext('chunkd_jobs_bytes'))";

/**
 * A job still 'receiving' this long after it was created lost its receiver (a replica that died
 * mid-upload): deleted by the sweep. Far longer than any upload lasts (--request-timeout-ms).
 */
const RECEIVING_TTL_S = 3600;

const SWEEP_MS = 60_000;
/** Expired jobs deleted per statement: each well inside the statement timeout, whatever piled up. */
const SWEEP_GROUP = 100;
/** How often an idle consumer asks the queue for a batch. */
const POLL_MS = 500;
export { RETRY_LIMIT };

/** This process, as recorded beside each result it stored. */
export const REPLICA = `${hostname()}:${process.pid}`;

/** One queued message: a job's documents [from, to). */
interface Batch {
  job_id: string;
  from: number;
  to: number;
  /** Set on a batch queued again because its write step's store did not take its writes (store-wait.ts). */
  wait?: WaitState;
}

/** Default of --job-store-wait-s, for a store opened without it. */
const STORE_WAIT_S = 600;

interface PgOptions {
  batchSize: number;
  ttlS: number;
  expiryS: number;
  logger: Logger;
  limits: StoreLimits;
  /** --job-store-wait-s */
  storeWaitS?: number;
}

/**
 * Jobs in PostgreSQL, their batches in a pg-boss 10 queue that every replica consumes. A batch
 * whose replica dies is not completed; pg-boss fails it once its expiry (--job-batch-expiry-s)
 * passes and hands it to another replica (retries). Documents are read by index and every result is
 * inserted with ON CONFLICT DO NOTHING on (job_id, idx), the counts raised only by the rows that
 * went in: a batch run twice (a retry racing a slow first run) stores and counts each document once.
 */
export class PgJobStore implements JobStore {
  private deps: ExecuteDeps | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly loops: Promise<void>[] = [];
  private wake: (() => void)[] = [];
  /** Batches in flight on this replica, by job: aborted when the job is cancelled here. */
  private readonly inFlight = new Map<string, Set<AbortController>>();

  private constructor(
    private readonly pool: pg.Pool,
    private readonly boss: PgBoss,
    private readonly options: PgOptions,
  ) {}

  /**
   * On the shared pool (services.postgres, pg-pool.ts), which pg-boss uses too through its `db`
   * adapter: one set of connections per replica, with the pool's timeouts and keep-alive. The pool
   * belongs to its service: close() leaves it open.
   */
  static async open(pool: pg.Pool, options: PgOptions): Promise<PgJobStore> {
    const retry = { retryLimit: RETRY_LIMIT, retryDelay: 1, retryBackoff: false, expireInSeconds: options.expiryS };
    const boss = new PgBoss({
      db: { executeSql: (text: string, values?: unknown[]) => pool.query(text, values) },
      schedule: false,
      // Expired batches are failed (and so retried) by this maintenance pass: often enough that a
      // dead replica's batch waits about one expiry.
      maintenanceIntervalSeconds: Math.max(1, Math.floor(options.expiryS / 2)),
      ...retry,
    } as PgBoss.ConstructorOptions);
    // Without a listener an 'error' event would end the process; while the database is down every poll fails.
    boss.on('error', (e) => options.logger.log('warning', 'job queue error', { error: e.message }));
    try {
      await migratePg(pool, 'jobs', JOB_MIGRATIONS);
      // pg-boss creates its schema and queues unlocked (two replicas on a new database collide on
      // pg_namespace_nspname_index): under chunkd's migration lock, one creates them, the others find them.
      await withMigrationLock(pool, async () => {
        await boss.start();
        if (!(await boss.getQueue(QUEUE))) {
          await boss.createQueue(QUEUE, { name: QUEUE, policy: 'standard', ...retry }).catch(async (e: Error) => {
            if (!(await boss.getQueue(QUEUE))) throw e; // else another replica created it meanwhile
          });
        } else {
          await boss.updateQueue(QUEUE, { name: QUEUE, policy: 'standard', ...retry }); // a queue made with older retry settings
        }
      });
    } catch (e) {
      await boss.stop({ graceful: false, wait: false } as PgBoss.StopOptions).catch(() => {});
      throw e;
    }
    return new PgJobStore(pool, boss, options);
  }

  /**
   * Start consuming: one batch more at once than the pool has threads, so one batch's database
   * round trips (fetch, read, store, complete) overlap another's chunking.
   */
  start(deps: ExecuteDeps): void {
    this.deps = deps;
    for (let i = 0; i < deps.executor.threads + 1; i++) this.loops.push(this.consume());
    this.sweeper = setInterval(
      () => void this.sweep().catch((e: Error) => this.options.logger.log('warning', 'expired jobs not deleted; tried again later', { error: e.message })),
      SWEEP_MS,
    ).unref();
  }

  /**
   * One consumer: fetch a batch, run it, complete it; when the queue is empty, wait a poll (or
   * until this replica queues a job). Our own loop over pg-boss's fetch/complete/fail rather than
   * its work(): pg-boss 10's work() leaves the promise of complete()/fail() unhandled, and while the
   * database is down that rejection would end the process. A batch whose complete() is lost
   * expires and runs again, which stores nothing twice.
   */
  private async consume(): Promise<void> {
    const warn = (msg: string) => (e: Error) => this.options.logger.log('warning', msg, { error: e.message });
    while (!this.closed) {
      let message: PgBoss.JobWithMetadata<Batch> | undefined;
      try {
        [message] = (await this.boss.fetch<Batch>(QUEUE, { batchSize: 1, includeMetadata: true })) ?? [];
      } catch (e) {
        warn('job queue unreachable')(e as Error);
      }
      if (!message) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => resolve(), POLL_MS);
          this.wake.push(() => (clearTimeout(timer), resolve()));
        });
        continue;
      }
      this.options.logger.log('debug', 'job batch claimed', { batch: message.id, ...message.data });
      try {
        await this.runBatch(message.data);
        this.options.logger.log('debug', 'job batch stored', { batch: message.id });
        await this.boss.complete(QUEUE, message.id).catch(warn('job batch not marked complete; it will run again and store nothing twice'));
      } catch (e) {
        if (!this.closed && e instanceof StoreWait) {
          // Not held here: queued again after a pause (or its documents failed), and this consumer takes the next batch.
          const handled = await this.storeWaited(message.data, e).then(
            () => true,
            (g: Error) => (warn('job batch could not be queued again after its store did not answer')(g), false),
          );
          if (handled) {
            await this.boss.complete(QUEUE, message.id).catch(warn('job batch not marked complete; it will run again and store nothing twice'));
            continue;
          }
        }
        if (!this.closed && message.retryCount >= message.retryLimit) {
          // The last run (and not cut short by this replica stopping): its documents still without a result fail, so the job ends.
          warn('job batch failed on its last retry; its documents without a result fail')(e as Error);
          const given = await this.giveUp(message.data, message.retryCount + 1).then(
            () => true,
            (g: Error) => (warn('job batch could not be given up')(g), false),
          );
          if (given) {
            await this.boss.complete(QUEUE, message.id).catch(warn('job batch not marked complete; it will run again and store nothing twice'));
            continue;
          }
        }
        warn('job batch failed; retried')(e as Error);
        await this.boss.fail(QUEUE, message.id, { message: (e as Error).message }).catch(warn('job batch not marked failed; it expires and is retried'));
      }
    }
  }

  /** The batch's store did not take its writes: the batch is queued again after a pause, or its documents fail with the reason. */
  private async storeWaited(batch: Batch, wait: StoreWait): Promise<void> {
    const step = nextTry(batch.wait, wait, Date.now(), this.options.storeWaitS ?? STORE_WAIT_S);
    if ('fail' in step) {
      logStoreWait(this.options.logger, batch.job_id, wait, undefined);
      await this.giveUp(batch, 0, step.fail);
      return;
    }
    logStoreWait(this.options.logger, batch.job_id, wait, step.pauseMs);
    await this.boss.send(QUEUE, { ...batch, wait: step.state }, { startAfter: Math.max(1, Math.ceil(step.pauseMs / 1000)) });
  }

  private wakeAll(): void {
    for (const w of this.wake.splice(0)) w();
  }

  async receive(id: string, createdAt: string): Promise<JobIntake> {
    await this.db((c) =>
      c.query("INSERT INTO chunkd_jobs (id, status, steps, offset_unit, total, created_at) VALUES ($1, 'receiving', '[]', 'codepoint', 0, $2)", [
        id,
        createdAt,
      ]),
    );
    let next = 0;
    const inTransaction = <T>(work: (c: pg.PoolClient) => Promise<T>) =>
      this.db(async (c) => {
        await c.query('BEGIN');
        try {
          const out = await work(c);
          await c.query('COMMIT');
          return out;
        } catch (e) {
          await c.query('ROLLBACK').catch(() => {});
          throw e;
        }
      });
    return {
      add: async (documents: JobDocument[]) => {
        const bytes = documents.reduce((n, d) => n + documentBytes(d), 0);
        await inTransaction(async (c) => {
          await this.reserve(c, bytes);
          await c.query(
            'INSERT INTO chunkd_job_documents (job_id, idx, doc_id, text, meta, chef, structure) SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])',
            [
              id,
              documents.map((_, i) => next + i),
              documents.map((d) => d.id),
              documents.map((d) => d.text),
              documents.map((d) => d.meta ?? null),
              documents.map((d) => d.chef ?? null),
              documents.map((d) => d.structure ?? null),
            ],
          );
          await c.query('UPDATE chunkd_jobs SET bytes = bytes + $2, total = total + $3 WHERE id = $1', [id, bytes, documents.length]);
        });
        next += documents.length;
      },
      commit: async (meta: JobMeta) => {
        const total = next;
        await inTransaction(async (c) => {
          await c.query(
            "UPDATE chunkd_jobs SET status = 'queued', pipeline_id = $2, steps = $3, offset_unit = $4, total = $5 WHERE id = $1 AND status = 'receiving'",
            [id, meta.pipeline_id, JSON.stringify(meta.steps), meta.offset_unit, total],
          );
          const batches = [];
          for (let from = 0; from < total; from += this.options.batchSize) {
            batches.push({ name: QUEUE, data: { job_id: id, from, to: Math.min(total, from + this.options.batchSize) } });
          }
          if (batches.length === 0)
            await c.query("UPDATE chunkd_jobs SET status = 'done', finished_at = now(), expires_at = now() + make_interval(secs => $2) WHERE id = $1", [
              id,
              this.options.ttlS,
            ]);
          // In the same transaction: the job is queued and its batches exist together or not at all.
          else await this.boss.insert(batches, { db: { executeSql: (text: string, values: unknown[]) => c.query(text, values) } });
        });
        // The answer is the job as committed (queued, or done when empty), read before the queue is woken.
        const view = (await this.get(id))!;
        this.wakeAll(); // this replica starts at once; the others within a poll
        return view;
      },
      // The documents cascade.
      abort: async () => void (await this.db((c) => c.query("DELETE FROM chunkd_jobs WHERE id = $1 AND status = 'receiving'", [id]))),
    };
  }

  /** Inside a transaction: `bytes` more fit in --max-jobs-bytes (the lock held until it ends), or JobQuotaError. */
  private async reserve(c: pg.PoolClient, bytes: number): Promise<void> {
    await c.query(QUOTA_LOCK);
    const used = Number((await c.query<{ used: string }>('SELECT coalesce(sum(bytes), 0) AS used FROM chunkd_jobs')).rows[0]!.used);
    if (used + bytes > this.options.limits.maxJobsBytes) throw new JobQuotaError(used, bytes, this.options.limits.maxJobsBytes);
  }

  /** Bytes in use by every job (documents and results), on every replica. */
  async usage(): Promise<number> {
    return Number((await this.pool.query<{ used: string }>('SELECT coalesce(sum(bytes), 0) AS used FROM chunkd_jobs')).rows[0]!.used);
  }

  async get(id: string): Promise<JobView | undefined> {
    return this.db(async (c) => {
      const { rows } = await c.query<JobRow>(
        "SELECT * FROM chunkd_jobs WHERE id = $1 AND status <> 'receiving' AND (expires_at IS NULL OR expires_at > now())",
        [id],
      );
      const row = rows[0];
      if (!row) return undefined;
      const failures = row.failed
        ? (await c.query<{ line: string }>('SELECT line FROM chunkd_job_results WHERE job_id = $1 AND NOT ok ORDER BY idx LIMIT $2', [id, FAILURES_MAX])).rows
        : [];
      return toView(
        row,
        failures.map((f) => f.line),
      );
    });
  }

  async results(id: string, after: number, limit: number, maxBytes: number): Promise<ResultLine[]> {
    // The running byte total cuts the page in SQL: the lines past the budget never leave the server.
    const { rows } = await this.db((c) =>
      c.query<{ idx: number; ok: boolean; line: string }>(
        `SELECT idx, ok, line FROM (
           SELECT idx, ok, line, row_number() OVER w AS n, sum(octet_length(line)) OVER w AS total
           FROM chunkd_job_results WHERE job_id = $1 AND idx > $2 WINDOW w AS (ORDER BY idx) ORDER BY idx LIMIT $3
         ) t WHERE n = 1 OR total <= $4 ORDER BY idx`,
        [id, after, limit, maxBytes],
      ),
    );
    return contiguous(rows, after);
  }

  async cancel(id: string): Promise<JobView | undefined> {
    for (const c of this.inFlight.get(id) ?? []) c.abort(new Error('the job was cancelled'));
    await this.db(async (c) => {
      const { rowCount } = await c.query(
        "UPDATE chunkd_jobs SET status = 'cancelled', finished_at = now(), expires_at = now() + make_interval(secs => $2) WHERE id = $1 AND status IN ('queued', 'running')",
        [id, this.options.ttlS],
      );
      // Batches still queued find the job cancelled and end at once; the documents go now.
      if (!rowCount) return;
      await c.query(
        `UPDATE chunkd_jobs SET bytes = bytes - (SELECT coalesce(sum(${DOC_BYTES_SQL}), 0) FROM chunkd_job_documents WHERE job_id = $1) WHERE id = $1`,
        [id],
      );
      await c.query('DELETE FROM chunkd_job_documents WHERE job_id = $1', [id]);
    });
    return this.get(id);
  }

  /** The queue exists and answers (its table is pg-boss's, on the same pool as everything else). */
  async ping(): Promise<void> {
    const { rows } = await this.db((c) => c.query('SELECT 1 FROM pgboss.queue WHERE name = $1', [QUEUE]));
    if (rows.length === 0) throw new Error(`The job queue ${QUEUE} is missing from pgboss.queue: restart a replica to create it again.`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweeper);
    this.wakeAll();
    // A batch in flight is given a moment; one still running then is left unfinished, for another replica after its expiry.
    await Promise.race([Promise.allSettled(this.loops), new Promise((r) => setTimeout(r, 2000).unref())]);
    // Not graceful: a batch in flight is simply not completed, and another replica takes it after its expiry.
    await this.boss.stop({ graceful: false, wait: true, timeout: 2000 } as PgBoss.StopOptions).catch(() => {});
  }

  /** Deletes expired jobs (their documents and results cascade) a group at a time. */
  private async sweep(): Promise<void> {
    await this.pool.query("DELETE FROM chunkd_jobs WHERE status = 'receiving' AND created_at < now() - make_interval(secs => $1)", [RECEIVING_TTL_S]);
    for (;;) {
      const { rowCount } = await this.pool.query('DELETE FROM chunkd_jobs WHERE id IN (SELECT id FROM chunkd_jobs WHERE expires_at < now() LIMIT $1)', [
        SWEEP_GROUP,
      ]);
      if ((rowCount ?? 0) < SWEEP_GROUP || this.closed) return;
    }
  }

  /** A batch that failed on every retry: each of its documents still without a result gets the reason. */
  private async giveUp({ job_id, from, to }: Batch, runs: number, error = gaveUp(runs)): Promise<void> {
    const { rows: docs } = await this.pool.query<{ index: number; id: string }>(
      `SELECT d.idx AS "index", d.doc_id AS id FROM chunkd_job_documents d
       WHERE d.job_id = $1 AND d.idx >= $2 AND d.idx < $3
         AND NOT EXISTS (SELECT 1 FROM chunkd_job_results r WHERE r.job_id = d.job_id AND r.idx = d.idx)`,
      [job_id, from, to],
    );
    const lines = docs.map((d) => errorLine(d.index, d.id, error));
    if (lines.length) await this.store(job_id, lines);
  }

  /** One batch: its documents without a result yet, run, and their results stored once. */
  private async runBatch({ job_id, from, to }: Batch): Promise<void> {
    const row = (await this.pool.query<JobRow>('SELECT * FROM chunkd_jobs WHERE id = $1', [job_id])).rows[0];
    if (!row || !['queued', 'running'].includes(row.status)) return; // cancelled, expired or finished: nothing to do
    await this.pool.query("UPDATE chunkd_jobs SET status = 'running', started_at = now() WHERE id = $1 AND status = 'queued'", [job_id]);
    const { rows: docs } = await this.pool.query<BatchDocument>(
      `SELECT d.idx AS "index", d.doc_id AS id, d.text, d.meta, d.chef, d.structure FROM chunkd_job_documents d
       WHERE d.job_id = $1 AND d.idx >= $2 AND d.idx < $3
         AND NOT EXISTS (SELECT 1 FROM chunkd_job_results r WHERE r.job_id = d.job_id AND r.idx = d.idx)
       ORDER BY d.idx`,
      [job_id, from, to],
    );
    const run: JobRun = { id: job_id, status: row.status, steps: JSON.parse(row.steps), offset_unit: row.offset_unit as JobRun['offset_unit'] };
    const abort = new AbortController();
    const mine = this.inFlight.get(job_id) ?? new Set();
    this.inFlight.set(job_id, mine.add(abort));
    let lines;
    try {
      lines = await runBatch(run, docs, this.deps!, {
        signal: abort.signal,
        stopping: () => this.closed,
        onBug: (d, e) =>
          this.options.logger.log('error', 'a bug failed a job document', { job: job_id, index: d.index, error: (e as Error)?.stack ?? String(e) }),
      });
    } catch (e) {
      if (abort.signal.aborted && !this.closed) return; // cancelled here: nothing to retry
      throw e;
    } finally {
      mine.delete(abort);
      if (mine.size === 0) this.inFlight.delete(job_id);
    }
    if (lines.length) await this.store(job_id, lines);
  }

  /**
   * Store a batch's results once each, in one transaction: a line over --max-document-output-bytes
   * is stored as its TOO_LARGE error; the documents' bytes are freed and the results' counted. When
   * the results would pass --max-jobs-bytes (checked under the quota lock, across replicas), the
   * job stops: every document without a result gets the INSUFFICIENT_STORAGE line, and it fails.
   */
  private async store(jobId: string, batch: ResultLine[]): Promise<void> {
    const { maxDocumentOutputBytes, maxJobsBytes } = this.options.limits;
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const { rows: waiting } = await c.query<{ idx: number; doc_id: string; bytes: string }>(
        `SELECT idx, doc_id, ${DOC_BYTES_SQL} AS bytes FROM chunkd_job_documents WHERE job_id = $1 AND idx = ANY($2::int[])`,
        [jobId, batch.map((l) => l.index)],
      );
      const docs = new Map(waiting.map((r) => [r.idx, { doc_id: r.doc_id, bytes: Number(r.bytes) }]));
      let lines = capped(batch, maxDocumentOutputBytes, (index) => docs.get(index)?.doc_id);
      const grows = lines.reduce((n, l) => n + Buffer.byteLength(l.line), 0) - [...docs.values()].reduce((n, d) => n + d.bytes, 0);
      let stop = false;
      if (grows > 0) {
        await c.query(QUOTA_LOCK);
        const used = Number((await c.query<{ used: string }>('SELECT coalesce(sum(bytes), 0) AS used FROM chunkd_jobs')).rows[0]!.used);
        if (used + grows > maxJobsBytes) {
          stop = true;
          const { rows: rest } = await c.query<{ idx: number; doc_id: string }>('SELECT idx, doc_id FROM chunkd_job_documents WHERE job_id = $1 ORDER BY idx', [
            jobId,
          ]);
          lines = rest.map((d) => errorLine(d.idx, d.doc_id, quotaReached(maxJobsBytes)));
        }
      }
      const { rows: added } = await c.query<{ ok: boolean; bytes: string }>(
        'INSERT INTO chunkd_job_results (job_id, idx, ok, line, replica) SELECT $1, i, o, l, $5 FROM unnest($2::int[], $3::bool[], $4::text[]) AS t(i, o, l) ON CONFLICT (job_id, idx) DO NOTHING RETURNING ok, octet_length(line) AS bytes',
        [jobId, lines.map((l) => l.index), lines.map((l) => l.ok), lines.map((l) => l.line), REPLICA],
      );
      const done = added.filter((r) => r.ok).length;
      const addedBytes = added.reduce((n, r) => n + Number(r.bytes), 0);
      const { rows: gone } = await c.query<{ bytes: string }>(
        `DELETE FROM chunkd_job_documents WHERE job_id = $1 AND idx = ANY($2::int[]) RETURNING ${DOC_BYTES_SQL} AS bytes`,
        [jobId, lines.map((l) => l.index)],
      );
      const freed = gone.reduce((n, r) => n + Number(r.bytes), 0);
      const { rows } = await c.query<JobRow>('UPDATE chunkd_jobs SET done = done + $2, failed = failed + $3, bytes = bytes + $4 WHERE id = $1 RETURNING *', [
        jobId,
        done,
        added.length - done,
        addedBytes - freed,
      ]);
      const row = rows[0];
      if (row && row.status === 'running' && (stop || row.done + row.failed >= row.total)) {
        await c.query('UPDATE chunkd_jobs SET status = $2, finished_at = now(), expires_at = now() + make_interval(secs => $3) WHERE id = $1', [
          jobId,
          stop ? 'failed' : finalStatus(row),
          this.options.ttlS,
        ]);
      }
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  }

  /** A route's database work on one connection; the database unreachable is a 503 with a reason safe to show, input it refuses a 422. */
  private async db<T>(op: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw asUnavailable(e, 'The jobs database');
    }
    let failure: unknown;
    try {
      return await op(client);
    } catch (e) {
      failure = e;
      if (e instanceof ChunkdError) throw e;
      throw asStorageError(e, 'The jobs database');
    } finally {
      // A broken connection is dropped, not reused.
      client.release(failure !== undefined && asUnavailable(failure) !== failure ? (failure as Error) : undefined);
    }
  }
}
