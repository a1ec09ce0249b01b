import type { ExtractLimits } from './limits.js';

/**
 * What a chef's format module implements: the text taken out of a file's bytes, within the
 * limits (limits.ts). A chef (plugins/<format>/impl.ts) wraps one and adds the structure; the
 * chef's manifest, not this object, is what chooses the chef for a file.
 */
export interface Extractor {
  /** Names the format in errors ("could not be read as PDF"). */
  format: string;
  /** The text; any error a library throws becomes a 422 (see run.ts). */
  extract(bytes: Uint8Array, limits: ExtractLimits, signal?: AbortSignal): Promise<string>;
}
