/** Builders for the rows suites share: one of our chunkers, a peer, a floor. */
import { missingPlugin, ourChunker } from './chunkd.js';
import { utf8Bytes, type Case, type Options, type Prepared } from './harness.js';

/** Texts a case runs over: one document, or a set chunked one after another. */
export type Texts = () => string[];

/** A row for one of our chunker plugins over `texts`, with `config` (defaults fill the rest). */
export function ours(o: Options, id: string, job: string, plugin: string, config: Record<string, unknown>, texts: Texts): Case {
  const label = `chunkd ${plugin} (${Object.entries(config)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(', ')})`;
  return {
    id,
    label,
    role: 'ours',
    job,
    missing: missingPlugin(o.plugins, plugin),
    async prepare() {
      const input = texts();
      const chunk = await ourChunker(plugin, config);
      return { bytes: utf8Bytes(input), run: () => chunk(input) };
    },
  };
}

/** A row for a peer library (or a floor): `build` loads it and returns a function chunking one text. */
export function other(
  role: 'peer' | 'floor',
  id: string,
  label: string,
  job: string,
  texts: Texts,
  build: () => Promise<(text: string) => Promise<number> | number>,
): Case {
  return {
    id,
    label,
    role,
    job,
    async prepare(): Promise<Prepared> {
      const input = texts();
      const one = await build();
      return {
        bytes: utf8Bytes(input),
        async run() {
          let n = 0;
          for (const t of input) n += await one(t);
          return n;
        },
      };
    },
  };
}

export const peer = (id: string, label: string, job: string, texts: Texts, build: Parameters<typeof other>[5]) => other('peer', id, label, job, texts, build);
export const floor = (id: string, label: string, job: string, texts: Texts, build: Parameters<typeof other>[5]) => other('floor', id, label, job, texts, build);

/** Input sizes: full runs use texts large enough to dwarf timer noise; --quick uses small ones. */
export const size = (o: Options, fullBytes: number, quickBytes = Math.min(fullBytes, 96_000)) => (o.quick ? quickBytes : fullBytes);
