/** One catalogue of every error chunkd puts on the wire: a stable code and its HTTP status. */
export const ERROR_STATUS = {
  VALIDATION: 422,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  TOO_LARGE: 413,
  INTERNAL: 500,
  MISSING_EXTRA: 501,
  UNAVAILABLE: 503,
  TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

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
    this.status = ERROR_STATUS[code];
  }

  toJSON(): { detail: string | Issue[]; code: ErrorCode } {
    return { detail: this.detail, code: this.code };
  }
}

export const isChunkdError = (e: unknown): e is ChunkdError => e instanceof ChunkdError;

/** A config a plugin cannot honour although its schema accepted it (e.g. overlap ≥ size). */
export function configError(msg: string): ChunkdError {
  return new ChunkdError('BAD_REQUEST', msg);
}

export function validationError(loc: (string | number)[], msg: string, type = 'value_error'): ChunkdError {
  return new ChunkdError('VALIDATION', [{ loc, msg, type }]);
}
