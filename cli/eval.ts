/**
 * `chunkd eval`: which chunking retrieves best, on the user's own documents and questions, in the
 * format of Chroma's chunking evaluation (a folder of <corpus_id>.md files and a questions CSV).
 * The same evaluation POST /v1/evaluate runs (service/evaluation/), here inline. Bad input: the message on
 * stderr and exit code 2.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { discover } from '../kernel/discovery.js';
import { ChunkdError, isChunkdError } from '../kernel/errors.js';
import { errorText } from './error-text.js';
import { EMBEDDED_MODEL } from '../kernel/fields.js';
import type { Registry } from '../kernel/registry.js';
import { inline } from '../kernel/engine/index.js';
import { exportPluginSettings } from '../service/plugin-settings.js';
import { bodyCheck } from '../wire/body-check.js';
import { PipelineUpdate } from '../wire/pipelines.js';
import { validateSteps, type Step } from '../service/pipelines/steps.js';
import { envOf, flagOf, resolveSettings, type Settings } from '../service/settings.js';
import { DATABASE_FILE } from '../service/storage/service.js';
import { SqliteStore } from '../service/storage/sqlite.js';
import { BenchmarkFormatError, readBenchmark, type ReadFile } from '../service/evaluation/benchmark-files.js';
import { readRegularFile, UnreadableFile } from './read-file.js';
import { evaluate, type Candidate, type CandidateResult } from '../service/evaluation/evaluate.js';
import type { LocateMode } from '../service/evaluation/locate.js';
import { evalServices, stepsCandidate, type RuntimeDeps } from '../service/evaluation/runtime.js';
import { checkStoreRetriever, storeModeOf, storeOf } from '../service/evaluation/store-retriever.js';
import type { EvalRetriever, EvalSpec } from '../service/evaluation/spec.js';
import { Stores } from '../service/stores/stores.js';
import { StoresConfigError } from '../service/stores/connections.js';
import { checkBudget, checkRetrieval, checkSpec } from '../service/evaluation/spec.js';
import { resultsTable } from '../service/evaluation/table.js';
import { Progress } from './progress.js';

const RETRIEVERS = ['bm25', 'embeddings', 'hybrid'] as const;
const LOCATES = ['text', 'offsets'] as const;
const FORMATS = ['table', 'json'] as const;
export const DEFAULT_CANDIDATE = '[{"type": "chunk", "chunker": "recursive"}]';

export const EVAL_HELP = `Usage: chunkd eval --corpora DIR --questions FILE.csv [--candidate STEPS|ID]… [--retriever bm25|embeddings|hybrid|store:NAME[:MODE]] [--k N]… [--locate text|offsets] [--format table|json]

Measure how well chunks retrieve, with the metrics of Chroma's chunking evaluation (recall,
precision, IoU, precision Ω: mean ± standard deviation over the questions, in %).

Options:
  --corpora DIR        The documents: DIR/<corpus_id>.md for each corpus_id the questions name.
  --questions FILE     CSV with columns question, references (JSON list of {content, start_index,
                       end_index}, in characters of the corpus), corpus_id.
  --candidate C        What to evaluate, repeatable: pipeline steps as JSON ('[{"type": "chunk",
                       "chunker": "token", "config": {"chunk_size": 200}}]'), a pipeline JSON file,
                       or the id or name of a pipeline stored in --data-dir. Default: ${DEFAULT_CANDIDATE}.
  --retriever R        bm25 (default), embeddings (exact cosine), hybrid (both fused as a store's hybrid
                       search fuses them for the model: BM25's order then the vector hits for the
                       built-in model, equal-weight reciprocal rank (k = 60) for others),
                       or store:NAME[:MODE]: through the real index of that store connection (${envOf('stores')},
                       or the default LanceDB store under the data directory), in the search mode MODE
                       (text, vector or hybrid; default: the collection's, text for the built-in model).
                       Each candidate's chunks are written to a scratch collection, searched with each
                       question and deleted afterwards; rows store:NAME:MODE name the mode that ran, and
                       the exact retriever of that mode (text: bm25, vector: embeddings, hybrid: hybrid)
                       is shown beside them.
  --embedding-model M  The model of embeddings, hybrid and store:NAME (default ${EMBEDDED_MODEL}).
  --k N                Chunks retrieved per question, repeatable or comma-separated (default 5).
  --locate L           text (default): score a chunk where its text first occurs in the corpus, as the
                       benchmark does; offsets: at its own start_index/end_index.
  --format F           table (default, Markdown) or json: {"results": [{candidate, retriever, k, recall,
                       precision, iou, precision_omega, chunks, mean_tokens}]}.
  --help               Show this help.

Settings the server takes from the environment apply too (${envOf('maxEvalWork')}, ${envOf('pluginsDir')},
${envOf('modelsDir')}, ${envOf('dataDir')}, ${envOf('stores')}, ...). A progress bar is drawn on a terminal's stderr.`;

class Usage extends Error {}

export async function evalCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let stores: Stores | undefined;
  try {
    let values;
    try {
      values = parseArgs({
        args,
        strict: true,
        options: {
          corpora: { type: 'string' },
          questions: { type: 'string' },
          candidate: { type: 'string', multiple: true },
          retriever: { type: 'string', default: 'bm25' },
          'embedding-model': { type: 'string', default: EMBEDDED_MODEL },
          k: { type: 'string', multiple: true },
          locate: { type: 'string', default: 'text' },
          format: { type: 'string', default: 'table' },
          help: { type: 'boolean' },
        },
      }).values;
    } catch (e) {
      throw new Usage(`${(e as Error).message.replace(/\.?$/, '.')} Run: chunkd eval --help`);
    }
    if (values.help) {
      process.stdout.write(`${EVAL_HELP}\n`);
      return 0;
    }
    const retriever: EvalRetriever = values.retriever!.startsWith('store:')
      ? (values.retriever as EvalRetriever)
      : oneOf(values.retriever!, RETRIEVERS, '--retriever', ', or store:NAME[:MODE] (a store connection, a search mode)');
    const locate = oneOf(values.locate!, LOCATES, '--locate');
    const format = oneOf(values.format!, FORMATS, '--format');
    if (!values.corpora || !values.questions)
      throw new Usage('Name the documents and the questions: chunkd eval --corpora DIR --questions FILE.csv. Run: chunkd eval --help');
    const k = (values.k ?? ['5'])
      .flatMap((v) => v.split(','))
      .map((v) => {
        const n = Number(v.trim());
        if (!Number.isInteger(n) || n < 1) throw new Usage(`--k takes whole numbers of at least 1 (got '${v}').`);
        return n;
      });
    const settings = readSettings(env);
    exportPluginSettings(settings);
    const registry = await discover(settings.pluginsDir);
    const { documents, questions } = readBenchmark(values.corpora, values.questions, boundedReader(settings));
    const spec: EvalSpec = { documents, questions, retriever, embeddingModel: values['embedding-model']!, k, locate, unit: 'codepoint', detail: false };
    checkSpec(spec, []);
    const raw = values.candidate?.length ? values.candidate : [DEFAULT_CANDIDATE];
    checkBudget(documents.length, raw.length, questions.length, settings.maxEvalWork);
    checkRetrieval(spec, raw.length, settings);
    const store = storeOf(retriever);
    if (store !== undefined) {
      stores = Stores.fromSettings(registry, settings);
      checkStoreRetriever(stores, store, k, [], storeModeOf(retriever));
    }
    const deps: RuntimeDeps = { registry, executor: inline, settings, ...(stores ? { stores } : {}) };
    const candidates = await readCandidates(raw, registry, settings, deps);
    const services = await evalServices(deps, retriever === 'bm25' ? undefined : spec.embeddingModel, store, storeModeOf(retriever));
    // Each candidate chunks every document: the rate is of document bytes through chunking and scoring.
    const bytes = documents.reduce((n, d) => n + Buffer.byteLength(d.text), 0);
    const bar = process.stderr.isTTY
      ? new Progress(
          process.stderr,
          candidates.length,
          candidates.map(() => bytes),
          'candidates',
        )
      : undefined;
    const { results } = await evaluate(spec, candidates, { ...services, progress: (p) => p.stage === 'scored' && bar?.done(p.candidate!) });
    bar?.finish();
    process.stdout.write(format === 'json' ? `${JSON.stringify({ results: results.map(jsonRow) })}\n` : `${resultsTable(results)}\n`);
    return 0;
  } catch (e) {
    return fail(e);
  } finally {
    await stores?.close();
  }
}

/** The JSON row: the candidate as given, then the figures (percentages). */
const jsonRow = (r: CandidateResult) => ({
  candidate: r.candidate,
  retriever: r.retriever,
  k: r.k,
  recall: r.recall,
  precision: r.precision,
  iou: r.iou,
  precision_omega: r.precision_omega,
  chunks: r.chunks,
  mean_tokens: r.mean_tokens,
});

/**
 * The benchmark's files as the server bounds what it reads: regular files only (a FIFO or a device
 * may never end), the questions no larger than a request body, each corpus no larger than a text.
 */
function boundedReader(settings: Settings): ReadFile {
  return (path, what) => {
    const questions = what === 'questions';
    const [limit, name] = questions ? [settings.maxBodyBytes, envOf('maxBodyBytes')] : [settings.maxTextChars * 4, envOf('maxTextChars')];
    const tooBig = (size: number) =>
      new Usage(
        `The ${what} ${path} has ${size.toLocaleString('en')} bytes; the limit is ${limit.toLocaleString('en')} (${name}${questions ? '' : ', 4 bytes a character'}). Use a smaller file, or raise ${name}.`,
      );
    return readRegularFile(path, limit, tooBig, what);
  };
}

function oneOf<T extends string>(value: string, choices: readonly T[], flag: string, more = ''): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new Usage(`${flag} must be one of ${choices.join(', ')}${more} (got '${value}').`);
}

function readSettings(env: NodeJS.ProcessEnv): Settings {
  try {
    return resolveSettings({}, env);
  } catch (e) {
    throw new Usage((e as Error).message);
  }
}

/** Each --candidate: JSON steps (a list of steps, one step, or an object with "steps"), a pipeline file, or a stored pipeline's id or name. */
async function readCandidates(raw: string[], registry: Registry, settings: Settings, deps: RuntimeDeps): Promise<Candidate[]> {
  let store: SqliteStore | undefined;
  try {
    const out: Candidate[] = [];
    for (const [i, text] of raw.entries()) {
      const at = `--candidate ${i + 1}`;
      const trimmed = text.trim();
      let label: unknown;
      let steps: unknown;
      if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
        try {
          label = JSON.parse(trimmed);
        } catch (e) {
          throw new Usage(`${at} is not valid JSON (${(e as Error).message}): give pipeline steps, e.g. ${DEFAULT_CANDIDATE}.`);
        }
        steps = Array.isArray(label) ? label : ((label as { steps?: unknown }).steps ?? [label]);
      } else if (existsSync(trimmed)) {
        const tooBig = (size: number) =>
          new Usage(
            `${at} ${trimmed} has ${size.toLocaleString('en')} bytes; a pipeline body may have ${settings.maxBodyBytes.toLocaleString('en')} (${envOf('maxBodyBytes')}).`,
          );
        const body = bodyCheck<{ steps?: Step[] }>(PipelineUpdate)(
          JSON.parse(readRegularFile(trimmed, settings.maxBodyBytes, tooBig, 'candidate').toString('utf8')),
          () => {},
        );
        if (!body.steps) throw new Usage(`${at}: the pipeline file ${trimmed} has no "steps".`);
        label = trimmed;
        steps = body.steps;
      } else {
        const file = resolve(settings.dataDir, DATABASE_FILE);
        if (!existsSync(file))
          throw new Usage(
            `${at} '${trimmed}' is neither JSON steps, a file, nor a stored pipeline (no pipelines database at ${file}; set ${flagOf('dataDir')} with ${envOf('dataDir')}).`,
          );
        store ??= await SqliteStore.open(file);
        const pipeline = (await store.get(trimmed)) ?? (await store.getByName(trimmed));
        if (!pipeline) throw new Usage(`${at}: no pipeline with id or name '${trimmed}' in ${file}.`);
        label = trimmed;
        steps = pipeline.steps;
      }
      const checked = bodyCheck<{ steps: Step[] }>(PipelineUpdate)({ steps }, () => {});
      const valid = await validateSteps(registry, checked.steps!, ['candidate', i + 1]);
      out.push(await stepsCandidate(label, valid, 'codepoint', deps));
    }
    return out;
  } finally {
    await store?.close();
  }
}

function fail(e: unknown): number {
  if (e instanceof Usage || e instanceof BenchmarkFormatError || e instanceof UnreadableFile || e instanceof StoresConfigError) {
    process.stderr.write(`${e.message}\n`);
    return 2;
  }
  if (isChunkdError(e)) {
    process.stderr.write(`${errorText(e)}\n`);
    return e.status < 500 ? 2 : 1;
  }
  process.stderr.write(`${String((e as Error)?.stack ?? e)}\n`);
  return 1;
}
