import { DRIFT, DRIFT_UNICODE } from './unicode-drift-table.js';

/**
 * tiktoken's WASM encoder classifies characters with its own (older) Unicode tables; this engine
 * uses ICU's. Characters assigned since then are letters here and unassigned there, so the piece
 * cache would split around them differently. scripts/find-unicode-drift.ts finds them (each code
 * point in the contexts below, the cache against the encoder) and writes unicode-drift-table.ts;
 * a text holding one goes to the encoder whole. On a Unicode version the table was not made for,
 * every text does: exact, without the cache's speed.
 */

/** Encodings with distinct patterns (r50k_base and p50k_base share gpt2's). */
export const probeEncodings = ['gpt2', 'cl100k_base', 'o200k_base'] as const;

/** Contexts in which a character's class (letter, case, number, mark, white space, other) changes the pieces. */
export const probeContexts = (x: string): string => `${x}'s\n1${x}23\nab${x} \na${x}b\n'${x}\n${x}${x}a\n ${x}\n`;

/** The Unicode versions the table holds for (this engine's version when the script ran). */
export const VERIFIED_UNICODE: readonly string[] = [DRIFT_UNICODE];

const EVERYTHING = /[^]/u;

/** Characters that send a text to the encoder whole, on this engine (the same for every encoding). */
export function driftPattern(): RegExp {
  if (!VERIFIED_UNICODE.includes(process.versions.unicode ?? '')) return EVERYTHING;
  const cls = DRIFT.map(([lo, hi]) => (lo === hi ? u(lo) : `${u(lo)}-${u(hi)}`)).join('');
  return cls ? new RegExp(`[${cls}]`, 'u') : /(?!)/u;
}

const u = (cp: number) => `\\u{${cp.toString(16)}}`;
