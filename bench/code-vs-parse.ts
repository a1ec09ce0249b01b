/**
 * How much the code chunker costs beyond tree-sitter itself: MB/s of a bare parse against MB/s of
 * chunking (parse, one encoding, cutting, and with include_nodes the metadata) on ~300 KB of real
 * source per language. Runs are interleaved and the median of 7 is kept, as the machine is shared.
 * Run: node --import tsx bench/code-vs-parse.ts
 */
import { readFileSync } from 'node:fs';
import { loadTokenizer } from '../kernel/tokenizers/index.js';
import { parserFor } from '../plugins/code/grammars.js';
import { create } from '../plugins/code/impl.js';
import { splitTree } from '../plugins/code/split.js';

const FILES: [string, string][] = [
  ['python', 'inventory.py'],
  ['javascript', 'router.js'],
  ['typescript', 'cache.ts'],
  ['go', 'worker.go'],
  ['rust', 'tokenizer.rs'],
  ['java', 'BankAccount.java'],
  ['cpp', 'matrix.cpp'],
  ['c_sharp', 'OrderService.cs'],
];
const RUNS = 7;
const now = () => Number(process.hrtime.bigint()) / 1e9;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const character = await loadTokenizer('character');

for (const [language, file] of FILES) {
  const one = readFileSync(new URL(`../plugins/code/fixtures/${file}.txt`, import.meta.url), 'utf8');
  const text = one.repeat(Math.ceil(300_000 / one.length));
  const mb = Buffer.byteLength(text) / 1e6;
  const parser = await parserFor(language);
  const plain = await create({ tokenizer: 'character', chunk_size: 512, language, include_nodes: false });
  const withNodes = await create({ tokenizer: 'character', chunk_size: 512, language, include_nodes: true });
  const parse: number[] = [];
  const chunk: number[] = [];
  const nodes: number[] = [];
  const cut: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    let t = now();
    parser.parse(text)!.delete();
    parse.push(now() - t);
    t = now();
    await plain.chunk(text);
    chunk.push(now() - t);
    t = now();
    await withNodes.chunk(text);
    nodes.push(now() - t);
    const tree = parser.parse(text)!;
    t = now();
    splitTree(tree.rootNode, { text, ends: character.ends(text), size: 512 });
    cut.push(now() - t);
    tree.delete();
  }
  const [p, c, n, s] = [median(parse), median(chunk), median(nodes), median(cut)];
  console.log(
    `${language.padEnd(10)} ${(mb * 1000).toFixed(0)} KB  parse ${(mb / p).toFixed(2)} MB/s  chunk ${(mb / c).toFixed(2)} MB/s (${(p / c).toFixed(2)}×)  ` +
      `include_nodes ${(mb / n).toFixed(2)} MB/s (${(p / n).toFixed(2)}×)  cutting alone ${(s * 1000).toFixed(1)} ms`,
  );
}
