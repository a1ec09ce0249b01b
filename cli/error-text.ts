import type { ChunkdError } from '../kernel/errors.js';

/** A ChunkdError as one message for a terminal: its detail, or each issue as `where: what` on a line of its own. */
export const errorText = (e: ChunkdError): string => (typeof e.detail === 'string' ? e.detail : e.detail.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('\n'));
