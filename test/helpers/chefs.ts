import type { Processed } from '../../kernel/chef/document.js';
import { discover } from '../../kernel/discovery.js';
import { processWith as runChef } from './run.js';

const registry = await discover();

/** Run a built-in chef on a text or on bytes, through a runner of this thread, with a config validated as a request's. */
export async function processWith(name: string, input: string | Uint8Array, config: Record<string, unknown> = {}, filename = ''): Promise<Processed> {
  const chef = registry.get('chef', name);
  const doc = typeof input === 'string' ? { text: input } : { bytes: input, filename };
  return runChef(chef, chef.validateConfig({ ...config }), doc);
}

/** Each span of a kind as the text it covers. */
export const covered = (doc: Processed, kind: keyof Processed['structure']) => doc.structure[kind].map((s) => doc.text.slice(s.start, s.end));
