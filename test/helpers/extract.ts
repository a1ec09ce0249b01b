import { processFile, type FileFacts, type RunChefOptions } from '../../kernel/engine/steps/process.js';
import { discover } from '../../kernel/discovery.js';

const registry = await discover();

/** An uploaded file's text and the chef that read it, as POST /v1/files reads it (chef by extension, then media type). */
export async function extractText(bytes: Uint8Array, facts: FileFacts, options?: RunChefOptions): Promise<{ text: string; format: string }> {
  const { text, format } = await processFile(registry, bytes, facts, options);
  return { text, format };
}
