/**
 * `node --import tsx bench/big-write.ts [--chunks 100000] [--texts 1] [--workers auto] [--rewrite] [--evaluate]`: one
 * request whose write step stores N chunks in the default LanceDB store (a pipeline of the token
 * chunker at 53 tokens (the default tokenizer's, about 8 of these words) a chunk, embedded by the built-in model, then the write), against a server in
 * its own process with a fresh data directory. A poller process of its own (bench/servers/health-
 * poller.ts) times GET /health every 10 ms and reads the server's RSS meanwhile. Prints the answer's
 * status and time, the worst /health, the peak RSS and the RSS 5 s after the answer (idle). `--rewrite` writes the documents once
 * before the timed request, which then replaces every one of them (the store's merge, not an append).
 * `--evaluate` sends the same documents to POST /v1/evaluate with the store's retriever instead (its
 * chunks written to a scratch collection, 20 questions searched, the collection dropped). The bound asked for (issue: reliability
 * round five): /health under 100 ms and RSS under 1 GB. Never part of `npm test`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startHealthPoller } from './servers/health-poller.js';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '100000' },
    texts: { type: 'string', default: '1' },
    workers: { type: 'string', default: 'auto' },
    rewrite: { type: 'boolean', default: false },
    evaluate: { type: 'boolean', default: false },
  },
});
const chunks = Number(values.chunks);
const texts = Number(values.texts);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WORDS = ['river', 'stone', 'market', 'window', 'garden', 'engine', 'paper', 'silver', 'forest', 'signal'];

/** A text of about `n` chunks: 8 words each (about 53 tokens of the default tokenizer), varied so chunks differ. */
function text(n: number, seed: number): string {
  const out: string[] = [];
  for (let i = 0; i < n * 8; i++) out.push(WORDS[(i * 7 + seed + (i >> 5)) % WORDS.length]!);
  return out.join(' ');
}

const dataDir = mkdtempSync(join(tmpdir(), 'chunkd-big-write-'));
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    'cli/index.ts',
    'serve',
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--data-dir',
    dataDir,
    '--workers',
    values.workers!,
    '--request-timeout-ms',
    '0',
    '--max-body-bytes',
    String(512 * 1024 * 1024),
    '--max-output-bytes',
    String(1024 * 1024 * 1024),
    '--max-chunks',
    String(chunks * 20),
  ],
  { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
);
let log = '';
child.stderr.setEncoding('utf8');
const port = await new Promise<number>((resolve, reject) => {
  child.stderr.on('data', (d: string) => {
    log += d;
    const line = log.split('\n').find((l) => l.includes('"listening"'));
    if (line) resolve((JSON.parse(line) as { port: number }).port);
  });
  child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${log}`)));
});
const url = `http://127.0.0.1:${port}`;
try {
  const steps = [
    { type: 'chunk', chunker: 'token', config: { chunk_size: 53 } },
    { type: 'write', store: 'default', config: { collection: 'big' } },
  ];
  const created = await fetch(`${url}/v1/pipelines`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'big', steps }),
  });
  const { id } = (await created.json()) as { id: string };
  const body = JSON.stringify({
    text: Array.from({ length: texts }, (_, i) => text(Math.ceil(chunks / texts), i)),
    document: Array.from({ length: texts }, (_, i) => `doc-${i}`),
  });
  const documents = Array.from({ length: texts }, (_, i) => ({ id: `doc-${i}`, text: text(Math.ceil(chunks / texts), i) }));
  // --evaluate: the same chunks through POST /v1/evaluate with the store's retriever (written to a scratch collection, searched, dropped).
  const evaluation = JSON.stringify({
    documents,
    questions: Array.from({ length: 20 }, (_, q) => ({
      question: documents[0]!.text.slice(q * 997, q * 997 + 60),
      references: [{ document: 'doc-0', start_index: q * 997, end_index: q * 997 + 60 }],
    })),
    candidates: [[{ type: 'chunk', chunker: 'token', config: { chunk_size: 53 } }]],
    retriever: 'store:default',
    k: 5,
  });
  const execute = () =>
    values.evaluate
      ? fetch(`${url}/v1/evaluate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: evaluation })
      : fetch(`${url}/v1/pipelines/${id}/execute`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  // --rewrite: the documents are written once before the timed request, which then replaces them.
  if (values.rewrite) await (await execute()).arrayBuffer();
  const poller = await startHealthPoller(url, child.pid!);
  const t = performance.now();
  const res = await execute();
  const answer = await res.arrayBuffer();
  if (res.status !== 200) console.error(Buffer.from(answer).toString().slice(0, 400));
  const ms = performance.now() - t;
  const health = await poller.stop();
  // What the server keeps once the work is done: its RSS after 5 s idle (a worker that never collects its heap keeps its peak).
  await new Promise((r) => setTimeout(r, 5000));
  const rssAfter = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  const listed = (await (await fetch(`${url}/v1/stores`)).json()) as { collections: { name: string; count: number }[] }[];
  const stored = listed[0]!.collections.find((c) => c.name === 'big')?.count ?? 0;
  console.log(
    JSON.stringify({
      chunks_asked: chunks,
      texts,
      rewrite: values.rewrite,
      evaluate: values.evaluate,
      status: res.status,
      answer_bytes: answer.byteLength,
      stored_rows: stored,
      request_s: +(ms / 1000).toFixed(1),
      health_worst_ms: +health.maxMs.toFixed(1),
      health_polls: health.polls,
      rss_peak_mb: Math.round(health.rssPeakMb),
      rss_idle_after_mb: Math.round(rssAfter),
    }),
  );
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
