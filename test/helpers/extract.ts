import type { FileFacts } from '../../kernel/chef/select.js';
import { discover } from '../../kernel/discovery.js';
import { extractFile, type RunWith } from './run.js';

const registry = await discover();

/** An uploaded file's text and the chef that read it, as POST /v1/files reads it (chef by extension, then media type). */
export async function extractText(bytes: Uint8Array, facts: FileFacts, options?: RunWith): Promise<{ text: string; format: string }> {
  const { text, format } = await extractFile(registry, bytes, facts, options);
  return { text, format };
}
