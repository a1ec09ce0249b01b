/** One catalogue of every error chunkd puts on the wire: a stable code, its HTTP status, and when it happens. */
export const ERRORS = {
  VALIDATION: { status: 422, meaning: 'The body is invalid (malformed JSON, a missing field, a wrong type or range): detail lists each problem with its loc.' },
  BAD_REQUEST: {
    status: 400,
    meaning:
      'A valid body the plugin cannot honour (chunk_overlap ≥ chunk_size, an unknown tokenizer, recipe or language), or a stored pipeline step whose plugin this server no longer has or accepts.',
  },
  UNAUTHORIZED: { status: 401, meaning: 'An API key is configured and the request has no valid Authorization: Bearer header.' },
  FORBIDDEN: {
    status: 403,
    meaning: 'A browser on an origin this server does not allow sent a POST, PUT or DELETE; --cors-origins lists the origins allowed.',
  },
  NOT_FOUND: {
    status: 404,
    meaning: 'Unknown route, plugin, pipeline or file (a file expired, deleted or never uploaded); the message suggests the closest name or what to do.',
  },
  METHOD_NOT_ALLOWED: { status: 405, meaning: 'The route exists with another method; the Allow header lists it.' },
  CONFLICT: {
    status: 409,
    meaning:
      "A pipeline with this name already exists; or a store's collection holds vectors of another model or dimension (the message names both); or a write to a store on one replica's disk from a replica set (the message names --stores).",
  },
  TOO_LARGE: { status: 413, meaning: 'The request exceeds a limit; the message names the limit and the setting that raises it.' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    meaning:
      'The body has a Content-Encoding other than gzip, deflate, br or identity, or an upload is not multipart/form-data or not a file format chunkd reads.',
  },
  INTERNAL: { status: 500, meaning: 'A bug in chunkd; nothing internal is on the wire, the server log has the details.' },
  MISSING_EXTRA: { status: 501, meaning: 'An optional package the plugin needs is not installed; the message has the npm install command.' },
  NOT_CONFIGURED: {
    status: 501,
    meaning: 'The plugin needs a service the operator has not configured (slumber: an LLM); the message names the settings to set.',
  },
  UPSTREAM: {
    status: 502,
    meaning:
      'A service the plugin calls (slumber: the LLM) is unreachable, timed out, refused the request or answered in a shape chunkd cannot read; the message names the service and its setting.',
  },
  UNAVAILABLE: {
    status: 503,
    meaning: 'The server is shutting down or overloaded, or its pipelines database or a vector store is unreachable (the message says which); retry later.',
  },
  TIMEOUT: { status: 504, meaning: 'The request took longer than the configured timeout and was abandoned.' },
  INSUFFICIENT_STORAGE: {
    status: 507,
    meaning:
      'A storage quota is reached (uploaded files: --max-files, --max-files-bytes; jobs: --max-jobs-bytes; collections of one store: --max-collections-per-store): delete or cancel some, or wait for them to expire.',
  },
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** One field-level problem, in the shape FastAPI-era clients already parse. */
export interface Issue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class ChunkdError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly detail: string | Issue[],
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : detail.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
    this.name = 'ChunkdError';
    this.status = ERRORS[code].status;
  }

  /** `message` is for clients that read one string (Chonkie's TypeScript client calls string methods on it). */
  toJSON(): { detail: string | Issue[]; code: ErrorCode; message: string } {
    return { detail: this.detail, code: this.code, message: summary(this.detail) };
  }
}

/**
 * One readable line for a detail: the string itself, or a list's first problem with its field and
 * a count of the others ("steps.1.config.chunk_size must be >= 1 (got 0) (and 2 more problems)").
 */
export function summary(detail: string | Issue[]): string {
  if (typeof detail === 'string') return detail;
  const listed = detail.filter((i) => i.type !== 'too_many_errors');
  const first = listed[0] ?? detail[0];
  if (!first) return 'The request is invalid.';
  const path = first.loc.filter((p, k) => !(k === 0 && (p === 'body' || p === 'query')));
  const field = path.join('.');
  const last = path.at(-1);
  // Messages that open with their field's name ("chunk_size must be >= 1") read best with the whole path in its place.
  const problem =
    typeof last === 'string' && first.msg.startsWith(`${last} `) ? `${field}${first.msg.slice(last.length)}` : `${field ? `${field}: ` : ''}${first.msg}`;
  const others = listed.length - 1;
  // A too_many_errors entry stands for problems that were not counted or not listed.
  const more = listed.length < detail.length ? ' (and more problems: see detail)' : others > 0 ? ` (and ${others} more problem${others === 1 ? '' : 's'})` : '';
  return `${problem}${more}`;
}

/**
 * Also true for a ChunkdError made by another copy of this module (a plugin that bundles the
 * kernel, or a worker thread that loaded it twice): recognised by its name and a known code.
 */
export const isChunkdError = (e: unknown): e is ChunkdError =>
  e instanceof ChunkdError || (e instanceof Error && e.name === 'ChunkdError' && (e as { code?: string }).code! in ERRORS);

/** A config a plugin cannot honour although its schema accepted it (e.g. overlap ≥ size). */
export function configError(msg: string): ChunkdError {
  return new ChunkdError('BAD_REQUEST', msg);
}

export function validationError(loc: (string | number)[], msg: string, type = 'value_error'): ChunkdError {
  return new ChunkdError('VALIDATION', [{ loc, msg, type }]);
}

/**
 * In a check that gathers every problem before answering: a validation error's issues join
 * `issues`; any other error (a bug, a refusal that is not about the body) is thrown on.
 */
export function gatherIssues(issues: Issue[], e: unknown): void {
  if (!isChunkdError(e) || !Array.isArray(e.detail)) throw e;
  for (const issue of e.detail) issues.push(issue); // not push(...detail): a body's issues have no count cap
}
