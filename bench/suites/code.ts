/** The code chunker against a bare tree-sitter parse of the same files (its floor). */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { floor, ours, size } from '../cases.js';
import { codeFiles } from '../corpora.js';
import type { Options, ThroughputSuite } from '../harness.js';
import { fmtSize } from '../table.js';

const CHUNK = 512;
const require = createRequire(import.meta.url);

export const codeSuite: ThroughputSuite = {
  kind: 'throughput',
  name: 'code',
  title: 'Code chunker',
  about: (o) =>
    `${fmtSize(size(o, 1e6))} of real JavaScript from node_modules (koa, @koa/router, piscina, ajv, autocannon, fast-check, sqlite; whole files, each chunked on its own), language javascript, chunk_size ${CHUNK}, character tokenizer. The floor is web-tree-sitter (the runtime chunkd uses) parsing each file with the tree-sitter-wasms grammar, tree freed, nothing else.`,
  cases(o: Options) {
    const files = () => codeFiles(size(o, 1e6));
    const job = `javascript, character, ${CHUNK}`;
    return [
      ours(o, 'ours', job, 'code', { language: 'javascript', chunk_size: CHUNK }, files),
      floor('parse', 'tree-sitter parse (web-tree-sitter)', job, files, async () => {
        const { Parser, Language } = await import('web-tree-sitter');
        await Parser.init();
        const wasm = join(dirname(require.resolve('tree-sitter-wasms/package.json')), 'out', 'tree-sitter-javascript.wasm');
        const parser = new Parser().setLanguage(await Language.load(wasm));
        return (t) => (parser.parse(t)!.delete(), 0);
      }),
    ];
  },
  targets: [{ what: 'code ≥ 0.5× tree-sitter parse', ours: 'ours', ref: 'parse', min: 0.5 }],
};
