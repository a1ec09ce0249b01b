/** The per-document key behind chunk ids (kernel/ids.ts) against the SHA-256 of the same text it replaced. */
import { hash } from 'node:crypto';
import { floor, size } from '../cases.js';
import { prose } from '../corpora.js';
import type { Options, ThroughputSuite } from '../harness.js';
import { fmtSize } from '../table.js';

export const idsSuite: ThroughputSuite = {
  kind: 'throughput',
  name: 'ids',
  title: 'Chunk ids',
  about: (o) =>
    `The one hash of the whole input behind every chunk id of a document, on ${fmtSize(size(o, 4e6))} of English prose (with emoji and other non-ASCII text) and on 4 KB documents (a small request): chunkd's key (XXH3-128 of the text's UTF-16 code units, WASM from hash-wasm, fed from a reused buffer) against node:crypto's SHA-256 of the same string (native, with SHA extensions where the CPU has them; it encodes the string to UTF-8 first), which chunkd used before. Per chunk an id then costs a few integer mixes either way.`,
  cases(o: Options) {
    const large = () => [prose(size(o, 4e6))];
    const small = () => Array.from({ length: 1000 }, (_, i) => prose(4000, i * 40));
    const key = async () => {
      const { idsReady, sourceKey } = await import('../../kernel/ids.js');
      await idsReady;
      return (t: string) => (sourceKey(t), 0);
    };
    const sha = async () => (t: string) => (hash('sha256', t, 'buffer'), 0);
    const largeJob = `one ${fmtSize(size(o, 4e6))} text`;
    const smallJob = '1,000 texts of 4 KB';
    return [
      { ...floor('key', 'chunkd id key (XXH3-128, hash-wasm)', largeJob, large, key), role: 'ours' },
      floor('sha', 'SHA-256 (node:crypto)', largeJob, large, sha),
      { ...floor('key-small', 'chunkd id key (XXH3-128, hash-wasm)', smallJob, small, key), role: 'ours' },
      floor('sha-small', 'SHA-256 (node:crypto)', smallJob, small, sha),
    ];
  },
  targets: [
    { what: 'chunk id key ≥ 1.5× SHA-256 of the text (one large text)', ours: 'key', ref: 'sha', min: 1.5 },
    { what: 'chunk id key ≥ 1× SHA-256 of the text (4 KB texts)', ours: 'key-small', ref: 'sha-small', min: 1 },
  ],
};
