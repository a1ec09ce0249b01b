import { ChunkdError } from './errors.js';

/**
 * The one 413 of every limit: what is too large, the limit, and the setting that raises it
 * (`--flag (ENV)`). Limits on requests (service/limits.ts), bodies (server/middleware/body.ts),
 * stored pipelines and answers (kernel/runner.ts) all speak through it.
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
