import { ranksOf } from './kernel/tokenizers/bpe-ranks.ts';
import { bytePairEnds } from './kernel/tokenizers/bpe-merge.ts';
const rnd = (n: number) => { let s = ''; let x = 12345; for (let i = 0; i < n; i++) { x = (x * 1103515245 + 12345) >>> 0; s += String.fromCharCode(97 + ((x >>> 16) % 26)); } return s; };
for (const name of ['cl100k_base','o200k_base']) {
  const m0 = process.memoryUsage().heapUsed;
  let t0 = performance.now(); const r = ranksOf(name); console.log(name, 'load', (performance.now()-t0).toFixed(0), 'ms', r.map.size, 'max', r.maxBytes);
  globalThis.gc?.(); console.log('heap +', ((process.memoryUsage().heapUsed - m0)/1e6).toFixed(1), 'MB');
  for (const s of [rnd(60000), 'a'.repeat(1_000_000)]) { t0 = performance.now(); const e = bytePairEnds(s, r); console.log(e.length, (performance.now()-t0).toFixed(0), 'ms'); }
}
