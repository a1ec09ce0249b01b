import { createRequire } from 'node:module';
import type pg from 'pg';
import { ChunkdError } from '../../kernel/errors.js';
import { defaultThreads } from '../../kernel/engine/index.js';
import type { ServiceFactory } from '../deps.js';

/** Key of the shared pg.Pool in AppDeps.services (absent without --database-url): every PostgreSQL user reuses it. */

/**
 * Bounds on every wait for the database, so a request never hangs on it: a connection that is not
 * made in CONNECT_TIMEOUT_MS, a statement the server runs longer than STATEMENT_TIMEOUT_MS, an
 * answer that does not arrive (a silent network) within QUERY_TIMEOUT_MS all fail, and the caller
 * answers 503.
 */
export const CONNECT_TIMEOUT_MS = 5_000;
export const STATEMENT_TIMEOUT_MS = 10_000;
export const QUERY_TIMEOUT_MS = STATEMENT_TIMEOUT_MS + 2_000;

/** The URL without its credentials and query: what logs and messages may show. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(an unparsable URL)';
  }
}

/**
 * The driver, loaded on the first pool made: importing it cost ~0.1 s of every chunkd process's
 * start (measured: 0.21 against 0.11 s for node alone), with no PostgreSQL configured too, since
 * the messages below are needed everywhere a store is reached.
 */
const driver = (): typeof pg => createRequire(import.meta.url)('pg') as typeof pg;

/** Connections the routes may use at once; the job consumers get theirs on top (see postgresPool). */
export const ROUTE_CONNECTIONS = 10;

export function createPool(url: string, onIdleError: (reason: string) => void = () => {}, max = ROUTE_CONNECTIONS): pg.Pool {
  const pool = new (driver().Pool)({
    connectionString: url,
    max,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    idle_in_transaction_session_timeout: STATEMENT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'chunkd',
  });
  // An idle connection the server drops (a restart, a failover) emits here; unhandled, it would end the process.
  pool.on('error', (e) => onIdleError(unreachableReason(e) ?? 'an idle connection failed'));
  // A connection the server ends while it is checked out (between two statements of a transaction)
  // emits 'error' on its client, which without a listener would end the process; its statement fails anyway.
  pool.on('connect', (client) => client.on('error', (e) => onIdleError(unreachableReason(e) ?? 'a connection failed')));
  return pool;
}

/**
 * Why the database cannot answer, in words safe for a client (never the URL or a credential), or
 * undefined when the error is not about reaching it (a constraint, a bug).
 */
export function unreachableReason(e: unknown): string | undefined {
  const { code, message = '' } = (e ?? {}) as { code?: string; message?: string };
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'no route to the server';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection lost';
  if (code === '57014') return 'a statement timed out';
  if (code === '57P01' || code === '57P02' || code === '57P03') return 'the server is shutting down or starting';
  if (code === '53300') return 'too many connections';
  if (code?.startsWith('08')) return 'connection failure';
  if (code?.startsWith('28')) return 'the server refused the credentials';
  if (code === '3D000') return 'the database does not exist';
  if (/timeout exceeded when trying to connect|connection timeout/i.test(message)) return 'connection timed out';
  if (/Query read timeout/i.test(message)) return 'no answer in time';
  if (/Connection terminated|Client has encountered a connection error|not queryable/i.test(message)) return 'connection lost';
  return undefined;
}

/** A failure to reach the database as the 503 a client can act on; anything else unchanged. */
export function asUnavailable(e: unknown, what = 'The pipelines database'): unknown {
  const reason = unreachableReason(e);
  if (reason === undefined) return e;
  return new ChunkdError(
    'UNAVAILABLE',
    `${what} is unreachable (${reason}): retry in a moment. If it lasts, the operator should check the PostgreSQL server --database-url names.`,
    { 'Retry-After': '5' },
  );
}

/**
 * Input PostgreSQL refuses that the checks before it should have caught (a NUL character, a number
 * out of range, text that is not of the column's type): a 422 naming the problem, never a 500.
 * The backstop behind the checks, so a check missed is a clear answer rather than a bug report.
 */
const BAD_INPUT: Record<string, string> = {
  '22021': 'a value holds a character the database cannot store (U+0000, NUL): remove it',
  '22P05': 'a value holds a character the database cannot store (U+0000, NUL): remove it',
  '22003': 'a number is out of range: send a smaller one',
  '22P02': 'a value is not of the expected type (an id, a number): check it',
};

/** asUnavailable, and input the database refused (see BAD_INPUT) as a 422; anything else unchanged. */
export function asStorageError(e: unknown, what?: string): unknown {
  const code = (e as { code?: string } | undefined)?.code;
  const reason = code === undefined ? undefined : BAD_INPUT[code];
  if (reason) return new ChunkdError('VALIDATION', [{ loc: ['request'], msg: `The request cannot be stored: ${reason}.`, type: 'value_error' }]);
  return asUnavailable(e, what);
}

/** Opens the shared pool when --database-url is set; an empty service otherwise. Closed last (boot closes in reverse). */
export const postgresPool: ServiceFactory<'postgres'> = async (settings, logger) => {
  if (!settings.databaseUrl) return { name: 'postgres', value: undefined, close: async () => {} };
  // One pool for the pipelines, the jobs and the job queue: the routes' connections, plus one for
  // each job consumer (one per worker thread and one more, each holding one connection at a time),
  // so busy consumers cannot starve the routes.
  const threads = settings.workers === 'auto' ? defaultThreads() : settings.workers;
  const pool = createPool(settings.databaseUrl, (reason) => logger.log('warning', 'database connection lost', { reason }), ROUTE_CONNECTIONS + threads + 1);
  logger.log('info', 'PostgreSQL pool', { database: redactUrl(settings.databaseUrl) });
  let ended: Promise<void> | undefined;
  return { name: 'postgres', value: pool, close: () => (ended ??= pool.end()) };
};
