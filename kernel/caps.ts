import { ChunkdError } from './errors.js';

/**
 * The 413 of a limit one setting raises: what is too large, the limit, and the setting that raises
 * it (`--flag (ENV)`). Limits on requests (service/limits.ts), stored pipelines and answers
 * (kernel/engine/output/caps.ts) speak through it. A 413 whose message has another shape builds its
 * own and still names its setting: a file's structure (kernel/chef/errors.ts), the extraction pool
 * (kernel/engine/placement/extract-pool.ts), a body's bytes (server/middleware/body.ts), an upload
 * (server/routes/files.ts), a job's quota (service/jobs/store.ts), evaluation's sizes
 * (service/evaluation/), and the slumber chunker's LLM call budget.
 */
export function tooLarge(what: string, limit: number | string, setting: Setting, advice = 'Send less per request'): ChunkdError {
  const shown = typeof limit === 'number' ? limit.toLocaleString('en') : limit;
  return new ChunkdError('TOO_LARGE', `${what}; the limit is ${shown}. ${advice}, or raise ${settingName(setting)}.`);
}

/** A setting as the command line and the environment name it: `--max-texts` and `CHUNKD_MAX_TEXTS`. */
export interface Setting {
  flag: string;
  env: string;
}

/** `--flag (ENV)`, or `--flag` for a setting whose variable is not known here. */
export const settingName = ({ flag, env }: Setting) => (env ? `--${flag} (${env})` : `--${flag}`);

/** `--flag, ENV`, or `--flag` for a setting whose variable is not known here. */
export const settingPair = ({ flag, env }: Setting) => (env ? `--${flag}, ${env}` : `--${flag}`);
