/**
 * `node --import tsx bench/stores/journey.ts [--chunks 100000]`: the stores bench's real text
 * written the ways a user writes it, step by step, beside the raw engine in the same run. Run
 * `npm run build` first: the CLI and the server are the built ones a user runs.
 *
 * The corpus's first documents (bench/stores/corpus.ts) are laid out again as files of text (each
 * chunk's text at its offsets, a gap where a chunk was left out), until they hold about the chunks
 * asked for. Then, each timed on its own:
 * - chunk: the preset's chunk step over every file, through the runner on this thread;
 * - chunk + embed: the same with the built-in model's embeddings refinery after it;
 * - raw engine: those chunks with their vectors, as Arrow built by column, `table.add` of ~5,000
 *   rows a call into a fresh LanceDB table (the stores bench's raw row);
 * - `chunkd ingest DIR --pipeline` (chunk, then write to the default store), a process of its own,
 *   start to exit (its start-up, ~1.3 s here, included);
 * - a job: `POST /v1/jobs` of every file's text with the same steps, to a running `chunkd serve`,
 *   from the answer 202 to the job's `done`.
 * The write's own share of an ingest or a job is its time less chunk + embed on this thread (the
 * same work, here on one thread; the CLI and the server chunk in a pool of workers, so it is a
 * bound, not an exact split). Not a suite of `npm run bench` (minutes per run); bench/results.md
 * holds its figures in the stores section's notes.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connect, type Table } from '@lancedb/lancedb';
import { discover } from '../../kernel/discovery.js';
import { storeChunkId, type StoreRow } from '../../kernel/handshake.js';
import { inline } from '../../kernel/engine/index.js';
import { ROOT } from '../../kernel/paths.js';
import { rowSchema, toArrow } from '../../plugins/lancedb/arrow.js';
import { stepsCandidate, type RuntimeDeps } from '../../service/evaluation/runtime.js';
import { validateSteps, type Step } from '../../service/pipelines/steps.js';
import { resolveSettings } from '../../service/settings.js';
import { benchRunner } from '../chunkd.js';
import { batches, corpus, PRESET } from './corpus.js';
import { loadAverage } from './measure.js';

const { values } = parseArgs({ options: { chunks: { type: 'string', default: '100000' } } });
const N = Number(values.chunks);
const CLI = join(ROOT, 'dist', 'cli', 'index.js');
const CHUNK: Step = { type: 'chunk', chunker: 'token', config: { tokenizer: 'cl100k_base', chunk_size: 200, chunk_overlap: 100 } };
const EMBED: Step = { type: 'refine', refinery: 'embeddings', config: {} };
/** A file among the corpus's first 10^6 chunks answers more than the default 16 MiB of JSON: ingest and the server take it, as the in-process steps do (their text limit is raised too). */
const LARGE_DOCUMENTS = { CHUNKD_MAX_DOCUMENT_OUTPUT_BYTES: String(256 * 1024 * 1024) };
const load = () => loadAverage();
const log = (l: string) => process.stderr.write(`${l}\n`);

/** The first documents of the corpus as texts: each chunk's text at its offsets, a blank line where a chunk was left out. */
function documents(): { id: string; text: string }[] {
  const out: { id: string; text: string; end: number }[] = [];
  for (const part of batches(info, N, 1000))
    for (const { chunk } of part) {
      let doc = out.at(-1);
      if (doc?.id !== chunk.document) out.push((doc = { id: chunk.document, text: '', end: 0 }));
      const from = Math.max(chunk.start_index, doc.end);
      if (chunk.start_index > doc.end) doc.text += '\n\n';
      doc.text += [...chunk.text].slice(from - chunk.start_index).join('');
      doc.end = Math.max(doc.end, chunk.end_index);
    }
  return out.map(({ id, text }) => ({ id, text }));
}

async function timed<T>(what: string, work: () => Promise<T>): Promise<{ s: number; value: T }> {
  const t = performance.now();
  const value = await work();
  const s = (performance.now() - t) / 1000;
  log(`  ${what}: ${s.toFixed(1)} s (load ${load()})`);
  return { s, value };
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${err.slice(-2000)}`))));
  });
}

const info = await corpus(N);
const docs = documents();
const dir = mkdtempSync(join(tmpdir(), 'chunkd-bench-journey-'));
try {
  const files = join(dir, 'files');
  mkdirSync(files);
  docs.forEach((d, i) => writeFileSync(join(files, `d${String(i).padStart(6, '0')}.txt`), d.text));
  const bytes = docs.reduce((n, d) => n + Buffer.byteLength(d.text), 0);
  log(`journey: ${docs.length} documents, ${(bytes / 2 ** 20).toFixed(1)} MiB of text, preset ${PRESET}`);

  // In-process: chunk, then chunk + embed, through the runner (as bench/quality does), 200 documents a call.
  const settings = resolveSettings({}, { ...process.env, CHUNKD_MAX_TEXT_CHARS: String(64 * 1024 * 1024) });
  const registry = await discover(settings.pluginsDir);
  const deps: RuntimeDeps = { registry, executor: inline, settings };
  const recipe = async (steps: Step[]) => (await stepsCandidate('journey', await validateSteps(registry, steps, ['journey']), 'codepoint', deps)).steps;
  const chunkOnly = await recipe([CHUNK]);
  const withEmbed = await recipe([CHUNK, EMBED]);
  const texts = docs.map((d) => d.text);
  const slices = Array.from({ length: Math.ceil(texts.length / 200) }, (_, i) => texts.slice(i * 200, i * 200 + 200));
  const chunked = await timed('chunk, through the runner', async () => {
    let n = 0;
    for (const s of slices) n += (await benchRunner().chunks({ steps: chunkOnly, unit: 'codepoint', returnType: 'chunks' }, s)).flat().length;
    return n;
  });
  // chunk + embed, and the rows the raw engine then adds (made outside the timed part).
  let embedS = 0;
  let rawS = 0;
  let rawRows = 0;
  const raw = await connect(join(dir, 'raw'));
  let table: Table | undefined;
  let pending: StoreRow[] = [];
  const flush = async () => {
    const data = toArrow(rowSchema(info.dimension), pending);
    const t = performance.now();
    if (!table) table = await raw.createTable('raw', data);
    else await table.add(data);
    rawS += (performance.now() - t) / 1000;
    rawRows += pending.length;
    pending = [];
  };
  for (const [i, s] of slices.entries()) {
    const t = performance.now();
    const lists = await benchRunner().chunks({ steps: withEmbed, unit: 'codepoint', returnType: 'chunks' }, s);
    embedS += (performance.now() - t) / 1000;
    lists.forEach((chunks, j) => {
      const document = docs[i * 200 + j]!.id;
      for (const c of chunks)
        pending.push({
          id: storeChunkId(document, c),
          document,
          text: c.text,
          start_index: c.start_index,
          end_index: c.end_index,
          token_count: c.token_count,
          metadata: {},
          embedding: c.embedding!,
        });
    });
    if (pending.length >= 5000) await flush();
  }
  if (pending.length) await flush();
  log(`  chunk + embed, through the runner: ${embedS.toFixed(1)} s; raw add of ${rawRows} rows: ${rawS.toFixed(1)} s (load ${load()})`);
  table?.close();
  raw.close();

  // chunkd ingest, a process of its own.
  const pipeline = join(dir, 'pipeline.json');
  writeFileSync(pipeline, JSON.stringify({ steps: [CHUNK, { type: 'write', store: 'default', config: { collection: 'journey' } }] }));
  const ingest = await timed('chunkd ingest', () =>
    run(process.execPath, [CLI, 'ingest', files, '--pipeline', pipeline], { CHUNKD_DATA_DIR: join(dir, 'ingest-data'), ...LARGE_DOCUMENTS }),
  );
  log(`  ingest said: ${ingest.value.trim()}`);

  // A job, to a running server.
  const port = 20_000 + (process.pid % 20_000);
  const server = spawn(process.execPath, [CLI, 'serve', '--port', String(port)], {
    env: { ...process.env, CHUNKD_DATA_DIR: join(dir, 'server-data'), CHUNKD_MAX_JOB_BYTES: String(1 << 30), ...LARGE_DOCUMENTS },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      if (i > 300) throw new Error('the server did not start');
      if (
        await fetch(`${base}/health`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const body = JSON.stringify({
      steps: [CHUNK, { type: 'write', store: 'default', config: { collection: 'journey' } }],
      documents: docs.map((d, i) => ({ id: `d${i}`, text: d.text })),
    });
    const job = await timed('job, 202 to done', async () => {
      const answer = await fetch(`${base}/v1/jobs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      if (answer.status !== 202) throw new Error(`POST /v1/jobs: ${answer.status} ${await answer.text()}`);
      const { id } = (await answer.json()) as { id: string };
      for (;;) {
        const state = (await (await fetch(`${base}/v1/jobs/${id}`)).json()) as { status: string; documents: unknown };
        if (state.status !== 'queued' && state.status !== 'running') return state;
        await new Promise((r) => setTimeout(r, 250));
      }
    });
    log(`  job: ${JSON.stringify(job.value)}`);
    const rows = [
      ['chunk (this thread)', chunked.s, chunked.value],
      ['chunk + embed (this thread)', embedS, rawRows],
      ['raw engine: add of those rows (Arrow by column, ~5,000 a call)', rawS, rawRows],
      ['chunkd ingest (process start to exit)', ingest.s, rawRows],
      ['job (202 to done)', job.s, rawRows],
    ] as const;
    console.log(`${docs.length} documents, ${(bytes / 2 ** 20).toFixed(1)} MiB, ${rawRows} chunks; load ${load()}\n`);
    console.log('| step | s | chunks/s |\n|---|---:|---:|');
    for (const [what, s, n] of rows) console.log(`| ${what} | ${s.toFixed(1)} | ${Math.round(n / s).toLocaleString('en')} |`);
    const writeShare = (s: number) => Math.max(0.001, s - embedS);
    console.log(
      `\nwrite share, ingest: ${writeShare(ingest.s).toFixed(1)} s (${Math.round(rawRows / writeShare(ingest.s)).toLocaleString('en')} chunks/s, ${(rawS / writeShare(ingest.s)).toFixed(2)}× the raw add's speed)`,
    );
    console.log(
      `write share, job: ${writeShare(job.s).toFixed(1)} s (${Math.round(rawRows / writeShare(job.s)).toLocaleString('en')} chunks/s, ${(rawS / writeShare(job.s)).toFixed(2)}× the raw add's speed)`,
    );
  } finally {
    server.kill();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
