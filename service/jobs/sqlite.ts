import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { open, type Database } from 'sqlite';
import sqlite3 from 'sqlite3';
import type { Logger } from '../logger.js';
import type { ExecuteDeps } from '../pipelines/execute.js';
import { logStoreWait, runBatch, type BatchDocument } from './run.js';
import { nextTry, type WaitState } from './store-wait.js';
import { StoreWait } from '../stores/write-batch.js';
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

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY, status TEXT NOT NULL, pipeline_id TEXT, steps TEXT NOT NULL, offset_unit TEXT NOT NULL,
    total INTEGER NOT NULL, done INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL, started_at TEXT, finished_at TEXT, expires_at TEXT,
    next_index INTEGER NOT NULL DEFAULT 0, bytes INTEGER NOT NULL DEFAULT 0
  );
  CREATE TABLE IF NOT EXISTS job_documents (job_id TEXT NOT NULL, idx INTEGER NOT NULL, doc_id TEXT NOT NULL, text TEXT NOT NULL, PRIMARY KEY (job_id, idx)) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS job_results (job_id TEXT NOT NULL, idx INTEGER NOT NULL, ok INTEGER NOT NULL, line TEXT NOT NULL, PRIMARY KEY (job_id, idx)) WITHOUT ROWID;
`;

/** How often finished jobs past their expiry are deleted. */
const SWEEP_MS = 60_000;

/** Bytes a document takes in job_documents, as documentBytes counts them. */
const DOC_BYTES_SQL =
  'length(CAST(text AS BLOB)) + length(CAST(doc_id AS BLOB)) + ifnull(length(CAST(meta AS BLOB)), 0) + ifnull(length(CAST(chef AS BLOB)), 0) + ifnull(length(CAST(structure AS BLOB)), 0)';

type Options = { batchSize: number; ttlS: number; logger: Logger; limits: StoreLimits; /** --job-store-wait-s */ storeWaitS?: number };

/** Default of --job-store-wait-s, for a store opened without it. */
const STORE_WAIT_S = 600;

/**
 * Jobs in a SQLite file of their own (<data-dir>/jobs.db, beside the pipelines database), run in
 * this process: one consumer claims the next batch of the oldest unfinished job, runs it on the
 * worker pool (service/jobs/run.ts) and stores each result once (INSERT OR IGNORE on (job, index)).
 * A job interrupted by a restart resumes at its first document without a result. A batch whose
 * write step's store did not take its writes rests (store-wait.ts): its job is passed over until
 * the pause is up, so a store never holds up the jobs to other stores. Cancel aborts a job's batch
 * in flight and ends its waits at once.
 */
export class SqliteJobStore implements JobStore {
  private deps: ExecuteDeps | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private sweeper: NodeJS.Timeout | undefined;
  /**
   * Every write goes through this one chain: the store has one connection, and a second BEGIN on it
   * (or a plain write landing inside another's transaction) would fail or be rolled back with it.
   */
  private writes: Promise<unknown> = Promise.resolve();
  /** Failed runs of a batch (job id and first index), for RETRY_LIMIT. */
  private readonly failedRuns = new Map<string, number>();
  /** Waits of batches whose store did not take their writes (job id and first index). */
  private readonly waits = new Map<string, WaitState>();
  /** Jobs passed over until this time (ms): their batch waits for its store. */
  private readonly resting = new Map<string, number>();
  private restTimer: NodeJS.Timeout | undefined;
  /** Ends the consumer's pause after a failed batch at once: close() awaits the consumer, and an unref'd timer alone would leave that await with nothing to wake it. */
  private endPause: (() => void) | undefined;
  /** The batch in flight of each job, to abort when the job is cancelled. */
  private readonly inFlight = new Map<string, AbortController>();

  private constructor(
    private readonly db: Database,
    private readonly options: Options,
  ) {}

  static async open(file: string, options: Options): Promise<SqliteJobStore> {
    mkdirSync(dirname(file), { recursive: true });
    const db = await open({ filename: file, driver: sqlite3.Database });
    await db.exec('PRAGMA busy_timeout = 5000');
    await db.get('PRAGMA journal_mode = WAL');
    await db.exec(SCHEMA);
    // A jobs database made before the quota: its jobs count from their next write on.
    const columns = await db.all<{ name: string }[]>('PRAGMA table_info(jobs)');
    if (!columns.some((c) => c.name === 'bytes')) await db.exec('ALTER TABLE jobs ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0');
    // A documents table made before documents carried a name and metadata.
    const docColumns = await db.all<{ name: string }[]>('PRAGMA table_info(job_documents)');
    if (!docColumns.some((c) => c.name === 'meta')) await db.exec('ALTER TABLE job_documents ADD COLUMN meta TEXT');
    // ... and before a document named by an uploaded file kept its chef and structure.
    for (const column of ['chef', 'structure'])
      if (!docColumns.some((c) => c.name === column)) await db.exec(`ALTER TABLE job_documents ADD COLUMN ${column} TEXT`);
    // Jobs whose body was still arriving when the process stopped: never committed, never to be.
    await db.exec("DELETE FROM job_documents WHERE job_id IN (SELECT id FROM jobs WHERE status = 'receiving'); DELETE FROM jobs WHERE status = 'receiving'");
    // Batches claimed before a restart but never stored: claimed again from the first missing result.
    await db.run("UPDATE jobs SET next_index = 0 WHERE status IN ('queued', 'running')");
    return new SqliteJobStore(db, options);
  }

  /** Start consuming (boot calls it once the worker pool exists). */
  start(deps: ExecuteDeps): void {
    this.deps = deps;
    this.sweeper = setInterval(
      () => void this.sweep().catch((e: Error) => this.options.logger.log('warning', 'expired jobs not deleted; tried again later', { error: e.message })),
      SWEEP_MS,
    ).unref();
    this.kick();
  }

  async receive(id: string, createdAt: string): Promise<JobIntake> {
    await this.exclusive(() =>
      this.db.run("INSERT INTO jobs (id, status, steps, offset_unit, total, created_at) VALUES (?, 'receiving', '[]', 'codepoint', 0, ?)", id, createdAt),
    );
    let next = 0;
    return {
      add: async (documents: JobDocument[]) => {
        const bytes = documents.reduce((n, d) => n + documentBytes(d), 0);
        await this.transaction(async () => {
          await this.reserve(bytes);
          // Multi-row inserts of bounded size: one statement per few hundred documents.
          for (let at = 0; at < documents.length; at += 200) {
            const part = documents.slice(at, at + 200);
            await this.db.run(
              `INSERT INTO job_documents (job_id, idx, doc_id, text, meta, chef, structure) VALUES ${part.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
              ...part.flatMap((d, i) => [id, next + at + i, d.id, d.text, d.meta ?? null, d.chef ?? null, d.structure ?? null]),
            );
          }
          await this.db.run('UPDATE jobs SET bytes = bytes + ?, total = total + ? WHERE id = ?', bytes, documents.length, id);
        });
        next += documents.length;
      },
      commit: async (meta: JobMeta) => {
        await this.transaction(async () => {
          await this.db.run(
            "UPDATE jobs SET status = 'queued', pipeline_id = ?, steps = ?, offset_unit = ?, total = ? WHERE id = ? AND status = 'receiving'",
            meta.pipeline_id,
            JSON.stringify(meta.steps),
            meta.offset_unit,
            next,
            id,
          );
          if (next === 0)
            await this.db.run("UPDATE jobs SET status = 'done', finished_at = ?, expires_at = ? WHERE id = ?", createdAt, this.expiry(createdAt), id);
        });
        // The answer is the job as committed (queued, or done when empty), read before the queue is woken.
        const view = (await this.get(id))!;
        this.kick();
        return view;
      },
      abort: () =>
        this.transaction(async () => {
          await this.db.run("DELETE FROM job_documents WHERE job_id = ? AND EXISTS (SELECT 1 FROM jobs WHERE id = ? AND status = 'receiving')", id, id);
          await this.db.run("DELETE FROM jobs WHERE id = ? AND status = 'receiving'", id);
        }),
    };
  }

  /** Inside a transaction: `bytes` more fit in --max-jobs-bytes, or JobQuotaError. */
  private async reserve(bytes: number): Promise<void> {
    const { used } = (await this.db.get<{ used: number }>('SELECT coalesce(sum(bytes), 0) AS used FROM jobs'))!;
    if (used + bytes > this.options.limits.maxJobsBytes) throw new JobQuotaError(used, bytes, this.options.limits.maxJobsBytes);
  }

  /** Bytes in use by every job (documents and results). */
  async usage(): Promise<number> {
    return (await this.db.get<{ used: number }>('SELECT coalesce(sum(bytes), 0) AS used FROM jobs'))!.used;
  }

  async get(id: string): Promise<JobView | undefined> {
    const row = await this.db.get<JobRow>('SELECT * FROM jobs WHERE id = ?', id);
    if (!row || row.status === 'receiving' || (row.expires_at && row.expires_at < new Date().toISOString())) return undefined;
    const failures = row.failed
      ? await this.db.all<{ line: string }[]>('SELECT line FROM job_results WHERE job_id = ? AND ok = 0 ORDER BY idx LIMIT ?', id, FAILURES_MAX)
      : [];
    return toView(
      row,
      failures.map((f) => f.line),
    );
  }

  async results(id: string, after: number, limit: number, maxBytes: number): Promise<ResultLine[]> {
    // The running byte total cuts the page in SQL: the lines past the budget are never read into memory.
    const rows = await this.db.all<{ idx: number; ok: number; line: string }[]>(
      `SELECT idx, ok, line FROM (
         SELECT idx, ok, line, row_number() OVER w AS n, sum(length(CAST(line AS BLOB))) OVER w AS total
         FROM job_results WHERE job_id = ? AND idx > ? WINDOW w AS (ORDER BY idx) ORDER BY idx LIMIT ?
       ) WHERE n = 1 OR total <= ? ORDER BY idx`,
      id,
      after,
      limit,
      maxBytes,
    );
    return contiguous(rows, after);
  }

  async cancel(id: string): Promise<JobView | undefined> {
    this.stopJob(id);
    const now = new Date().toISOString();
    await this.transaction(async () => {
      const { changes } = await this.db.run(
        "UPDATE jobs SET status = 'cancelled', finished_at = ?, expires_at = ? WHERE id = ? AND status IN ('queued', 'running')",
        now,
        this.expiry(now),
        id,
      );
      if (!changes) return;
      await this.db.run(`UPDATE jobs SET bytes = bytes - (SELECT coalesce(sum(${DOC_BYTES_SQL}), 0) FROM job_documents WHERE job_id = ?) WHERE id = ?`, id, id);
      await this.db.run('DELETE FROM job_documents WHERE job_id = ?', id);
    });
    this.stopJob(id);
    return this.get(id);
  }

  /** A cancelled job: its batch in flight aborted, its waits forgotten. */
  private stopJob(id: string): void {
    this.inFlight.get(id)?.abort(new Error('the job was cancelled'));
    this.resting.delete(id);
    for (const k of this.waits.keys()) if (k.startsWith(`${id}:`)) this.waits.delete(k);
  }

  async ping(): Promise<void> {
    await this.db.get('SELECT 1 FROM jobs LIMIT 1');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweeper);
    clearTimeout(this.restTimer);
    for (const c of this.inFlight.values()) c.abort(new Error('the server is stopping'));
    this.endPause?.();
    await this.running?.catch(() => {});
    await this.writes;
    await this.db.close();
  }

  /** `work` alone on the connection: after every write before it, before every write after it. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.writes.then(work, work);
    this.writes = run.catch(() => {});
    return run;
  }

  private transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      await this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await work();
        await this.db.exec('COMMIT');
        return result;
      } catch (e) {
        await this.db.exec('ROLLBACK').catch(() => {});
        throw e;
      }
    });
  }

  private readonly onBug = (d: { index: number }, e: unknown) =>
    this.options.logger.log('error', 'a bug failed a job document', { index: d.index, error: (e as Error)?.stack ?? String(e) });

  private expiry(from: string): string {
    return new Date(Date.parse(from) + this.options.ttlS * 1000).toISOString();
  }

  /** One consumer loop at a time; a kick while it runs makes it look again before it stops. */
  private kick(): void {
    if (!this.deps || this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.consume().finally(() => {
      this.running = undefined;
      if (this.again && !this.closed) this.kick();
    });
  }

  private async consume(): Promise<void> {
    for (;;) {
      this.again = false;
      if (this.closed) return;
      let ran = false;
      try {
        ran = await this.runNextBatch();
      } catch (e) {
        if (this.closed) return;
        this.options.logger.log('error', 'job batch failed; retried in a second', { error: (e as Error).stack ?? String(e) });
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 1000).unref();
          this.endPause = () => (clearTimeout(timer), resolve());
        });
        this.endPause = undefined;
        continue;
      }
      if (!ran && !this.again) return;
    }
  }

  /** Jobs whose batch rests (waits for its store) until a time still to come; the consumer is kicked when the first rest ends. */
  private restingNow(): string[] {
    const now = Date.now();
    let first = Infinity;
    for (const [id, until] of this.resting) {
      if (until <= now) this.resting.delete(id);
      else first = Math.min(first, until);
    }
    clearTimeout(this.restTimer);
    if (first < Infinity) this.restTimer = setTimeout(() => this.kick(), first - now + 5).unref();
    return [...this.resting.keys()];
  }

  private async runNextBatch(): Promise<boolean> {
    const resting = this.restingNow();
    const job = await this.db.get<JobRow & { next_index: number }>(
      `SELECT * FROM jobs WHERE status IN ('queued', 'running') AND next_index < total AND id NOT IN (${resting.map(() => '?').join(', ')}) ORDER BY created_at, id LIMIT 1`,
      ...resting,
    );
    if (!job) return false;
    const from = job.next_index;
    const to = from + this.options.batchSize;
    const now = new Date().toISOString();
    await this.exclusive(() =>
      this.db.run(
        "UPDATE jobs SET next_index = ?, status = 'running', started_at = coalesce(started_at, ?) WHERE id = ? AND status IN ('queued', 'running')",
        to,
        now,
        job.id,
      ),
    );
    try {
      const docs = await this.db.all<BatchDocument[]>(
        'SELECT idx AS "index", doc_id AS id, text, meta, chef, structure FROM job_documents WHERE job_id = ? AND idx >= ? AND idx < ? ORDER BY idx',
        job.id,
        from,
        to,
      );
      const run: JobRun = { id: job.id, status: job.status, steps: JSON.parse(job.steps), offset_unit: job.offset_unit as JobRun['offset_unit'] };
      const abort = new AbortController();
      this.inFlight.set(job.id, abort);
      let lines;
      try {
        lines = await runBatch(run, docs, this.deps!, { signal: abort.signal, stopping: () => this.closed, onBug: this.onBug });
      } finally {
        this.inFlight.delete(job.id);
      }
      await this.store(job.id, lines);
      this.failedRuns.delete(`${job.id}:${from}`);
      this.waits.delete(`${job.id}:${from}`);
    } catch (e) {
      const key = `${job.id}:${from}`;
      if (!this.closed && (await this.cancelled(job.id))) return true; // cancelled meanwhile: nothing to retry
      if (!this.closed && e instanceof StoreWait) {
        await this.storeWaited(job.id, from, to, e);
        return true;
      }
      const runs = (this.failedRuns.get(key) ?? 0) + 1;
      if (!this.closed && runs >= RETRY_LIMIT) {
        // It failed the same way every time: its documents without a result fail, so the job ends.
        this.failedRuns.delete(key);
        this.options.logger.log('warning', 'job batch failed on its last retry; its documents without a result fail', {
          job: job.id,
          from,
          error: (e as Error)?.message,
        });
        await this.giveUp(job.id, from, to, runs);
        return true;
      }
      this.failedRuns.set(key, runs);
      // The claim moved past this batch before it ran: moved back, or the retry would skip it for good.
      await this.exclusive(() => this.db.run('UPDATE jobs SET next_index = min(next_index, ?) WHERE id = ?', from, job.id)).catch(() => {});
      throw e;
    }
    return true;
  }

  private async cancelled(jobId: string): Promise<boolean> {
    const row = await this.db.get<{ status: string }>('SELECT status FROM jobs WHERE id = ?', jobId);
    return !row || row.status === 'cancelled';
  }

  /** The batch's store did not take its writes: the job rests until the next try, or the batch's documents fail with the reason. */
  private async storeWaited(jobId: string, from: number, to: number, wait: StoreWait): Promise<void> {
    const key = `${jobId}:${from}`;
    const step = nextTry(this.waits.get(key), wait, Date.now(), this.options.storeWaitS ?? STORE_WAIT_S);
    if ('fail' in step) {
      this.waits.delete(key);
      logStoreWait(this.options.logger, jobId, wait, undefined);
      await this.giveUp(jobId, from, to, 0, step.fail);
      return;
    }
    this.waits.set(key, step.state);
    logStoreWait(this.options.logger, jobId, wait, step.pauseMs);
    this.resting.set(jobId, Date.now() + step.pauseMs);
    // The claim moved past this batch before it ran: moved back, so the batch runs again after the rest.
    await this.exclusive(() => this.db.run('UPDATE jobs SET next_index = min(next_index, ?) WHERE id = ?', from, jobId));
  }

  /** A batch that failed on every run: each of its documents still without a result gets the reason. */
  private async giveUp(jobId: string, from: number, to: number, runs: number, error = gaveUp(runs)): Promise<void> {
    const docs = await this.db.all<{ idx: number; doc_id: string }[]>(
      'SELECT idx, doc_id FROM job_documents WHERE job_id = ? AND idx >= ? AND idx < ? ORDER BY idx',
      jobId,
      from,
      to,
    );
    await this.store(
      jobId,
      docs.map((d) => errorLine(d.idx, d.doc_id, error)),
    );
  }

  /**
   * Store a batch's results once each, in one transaction: a line over --max-document-output-bytes
   * is stored as its TOO_LARGE error; the documents' bytes are freed and the results' counted. When
   * the results would pass --max-jobs-bytes, the job stops: every document without a result gets
   * the INSUFFICIENT_STORAGE line instead (small, whatever the quota), and the job fails.
   */
  private async store(jobId: string, batch: ResultLine[]): Promise<void> {
    const { maxDocumentOutputBytes, maxJobsBytes } = this.options.limits;
    await this.transaction(async () => {
      const docs = new Map<number, { doc_id: string; bytes: number }>();
      for (let at = 0; at < batch.length; at += 500) {
        const part = batch.slice(at, at + 500);
        const rows = await this.db.all<{ idx: number; doc_id: string; bytes: number }[]>(
          `SELECT idx, doc_id, ${DOC_BYTES_SQL} AS bytes FROM job_documents WHERE job_id = ? AND idx IN (${part.map(() => '?').join(', ')})`,
          jobId,
          ...part.map((r) => r.index),
        );
        for (const r of rows) docs.set(r.idx, r);
      }
      let lines = capped(batch, maxDocumentOutputBytes, (index) => docs.get(index)?.doc_id);
      const grows = lines.reduce((n, l) => n + Buffer.byteLength(l.line), 0) - [...docs.values()].reduce((n, d) => n + d.bytes, 0);
      let stop = false;
      if (grows > 0) {
        const { used } = (await this.db.get<{ used: number }>('SELECT coalesce(sum(bytes), 0) AS used FROM jobs'))!;
        if (used + grows > maxJobsBytes) {
          stop = true;
          const rest = await this.db.all<{ idx: number; doc_id: string }[]>('SELECT idx, doc_id FROM job_documents WHERE job_id = ? ORDER BY idx', jobId);
          lines = rest.map((d) => errorLine(d.idx, d.doc_id, quotaReached(maxJobsBytes)));
        }
      }
      let done = 0;
      let failed = 0;
      let added = 0;
      let freed = 0;
      // One statement per 500 rows (RETURNING gives the rows that went in): each statement is a round trip to SQLite's thread.
      // At most 500 rows a statement: SQLite caps the parameters of one (32,766).
      for (let at = 0; at < lines.length; at += 500) {
        const part = lines.slice(at, at + 500);
        const inserted = await this.db.all<{ ok: number; bytes: number }[]>(
          `INSERT OR IGNORE INTO job_results (job_id, idx, ok, line) VALUES ${part.map(() => '(?, ?, ?, ?)').join(', ')} RETURNING ok, length(CAST(line AS BLOB)) AS bytes`,
          ...part.flatMap((r) => [jobId, r.index, r.ok ? 1 : 0, r.line]),
        );
        const ok = inserted.filter((r) => r.ok).length;
        done += ok;
        failed += inserted.length - ok;
        added += inserted.reduce((n, r) => n + r.bytes, 0);
        const gone = await this.db.all<{ bytes: number }[]>(
          `DELETE FROM job_documents WHERE job_id = ? AND idx IN (${part.map(() => '?').join(', ')}) RETURNING ${DOC_BYTES_SQL} AS bytes`,
          jobId,
          ...part.map((r) => r.index),
        );
        freed += gone.reduce((n, r) => n + r.bytes, 0);
      }
      await this.db.run('UPDATE jobs SET done = done + ?, failed = failed + ?, bytes = bytes + ? WHERE id = ?', done, failed, added - freed, jobId);
      const row = (await this.db.get<JobRow>('SELECT * FROM jobs WHERE id = ?', jobId))!;
      if (row.status === 'running' && (stop || row.done + row.failed >= row.total)) {
        const now = new Date().toISOString();
        await this.db.run(
          'UPDATE jobs SET status = ?, finished_at = ?, expires_at = ? WHERE id = ?',
          stop ? 'failed' : finalStatus(row),
          now,
          this.expiry(now),
          jobId,
        );
      }
    });
  }

  private async sweep(): Promise<void> {
    const now = new Date().toISOString();
    const gone = await this.db.all<{ id: string }[]>('SELECT id FROM jobs WHERE expires_at < ?', now);
    for (const { id } of gone) {
      await this.transaction(async () => {
        await this.db.run('DELETE FROM job_results WHERE job_id = ?', id);
        await this.db.run('DELETE FROM job_documents WHERE job_id = ?', id);
        await this.db.run('DELETE FROM jobs WHERE id = ?', id);
      });
    }
  }
}

/** The rows from `after + 1` on without a gap: a result missing (not finished yet) ends the page. */
export function contiguous(rows: { idx: number; ok: number | boolean; line: string }[], after: number): ResultLine[] {
  const out: ResultLine[] = [];
  for (const r of rows) {
    if (r.idx !== after + 1 + out.length) break;
    out.push({ index: r.idx, ok: Boolean(r.ok), line: r.line });
  }
  return out;
}
