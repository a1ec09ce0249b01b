import { settingName, settingPair, type Setting } from '../kernel/caps.js';
import { ChunkdError } from '../kernel/errors.js';
import { readApiKeysFile } from './api-keys-file.js';

/**
 * Every operator setting, declared once: the CLI parser, the environment lookup, `--help` and the
 * README's configuration table are all derived from this list.
 */
export const SETTINGS = {
  host: { env: 'CHUNKD_HOST', type: 'string', default: '0.0.0.0', help: 'Interface to listen on.' },
  port: { env: 'CHUNKD_PORT', type: 'integer', default: 8000, help: 'TCP port to listen on.' },
  reload: { env: 'CHUNKD_RELOAD', type: 'boolean', default: false, help: 'Restart when source files change (development only).' },
  'log-level': {
    env: 'CHUNKD_LOG_LEVEL',
    type: 'string',
    default: 'info',
    choices: ['debug', 'info', 'warning', 'error'],
    help: 'Least severe log level written.',
  },
  'data-dir': {
    env: 'CHUNKD_DATA_DIR',
    type: 'string',
    default: './data',
    help: 'Directory holding the pipelines database and uploaded files (created on first start). One process writes it at a time: a second server or chunkd ingest on it refuses to start, naming the process holding its chunkd.lock (a lock left by a process that no longer runs is taken over; not taken with --database-url).',
  },
  'database-url': {
    env: 'CHUNKD_DATABASE_URL',
    type: 'string',
    default: '',
    secret: true,
    help: 'PostgreSQL URL (postgres://user:password@host:5432/db) holding pipelines, jobs and uploaded files, shared by every replica; unset: an embedded SQLite database and a files folder in --data-dir. Unreachable at start-up: retried until it answers (/ready 503 meanwhile).',
  },
  stores: {
    env: 'CHUNKD_STORES',
    type: 'string',
    default: '',
    help: 'Vector store connections: a JSON file (or, starting with `[`, the JSON itself) holding an array of {"name", "handshake", ...its connection settings}; a value "env:VAR" is read from the environment at start. Unset: one connection, default, a LanceDB store under --data-dir/stores/default. A bad entry stops start-up naming it.',
  },
  'store-connect-timeout-ms': {
    env: 'CHUNKD_STORE_CONNECT_TIMEOUT_MS',
    type: 'integer',
    default: 5_000,
    min: 1,
    help: 'Longest wait for a store connection to open, and for a store to list its collections: a store that does not answer in time is a 503 naming it (GET /v1/stores marks it with error), and never holds up another store.',
  },
  'store-query-timeout-ms': {
    env: 'CHUNKD_STORE_QUERY_TIMEOUT_MS',
    type: 'integer',
    default: 60_000,
    min: 1,
    help: 'Longest one store call (a search, a delete, a batch of writes of up to 10,000 chunks; a larger batch gets this once more per 10,000) may take: past it the call answers 503 naming the store (a job counts it as one try of its write).',
  },
  'job-store-wait-s': {
    env: 'CHUNKD_JOB_STORE_WAIT_S',
    type: 'integer',
    default: 600,
    min: 0,
    help: "How long, in all, a job's batch waits for a write step's store that cannot be reached (tried again with growing pauses; other jobs run meanwhile): then its documents fail with the reason. A store that answers the same error 3 times fails them at once.",
  },
  'max-concurrent-searches': {
    env: 'CHUNKD_MAX_CONCURRENT_SEARCHES',
    type: 'integer',
    default: 4,
    min: 1,
    help: 'Store searches run at once (POST /v1/stores/{store}/search, evaluation through a store); more wait their turn, and past 8 × this many waiting → 503.',
  },
  'max-collections-per-store': {
    env: 'CHUNKD_MAX_COLLECTIONS_PER_STORE',
    type: 'integer',
    default: 1_000,
    min: 1,
    help: 'Most collections one store connection holds: a write that would make one more → 507 naming the store (drop collections, or raise the limit).',
  },
  'max-body-bytes': {
    env: 'CHUNKD_MAX_BODY_BYTES',
    type: 'integer',
    default: 32 * 1024 * 1024,
    min: 1,
    help: 'Largest request body accepted, in bytes (larger → 413).',
  },
  'max-texts': { env: 'CHUNKD_MAX_TEXTS', type: 'integer', default: 10_000, min: 1, help: 'Most texts in one batch (`text` as a list; larger → 413).' },
  'max-text-chars': {
    env: 'CHUNKD_MAX_TEXT_CHARS',
    type: 'integer',
    default: 16 * 1024 * 1024,
    min: 1,
    help: 'Longest text accepted, in characters (UTF-16 code units; longer → 413).',
  },
  'max-chunks': { env: 'CHUNKD_MAX_CHUNKS', type: 'integer', default: 100_000, min: 1, help: 'Most chunks in one refine call (larger → 413).' },
  'max-output-bytes': {
    env: 'CHUNKD_MAX_OUTPUT_BYTES',
    type: 'integer',
    default: 64 * 1024 * 1024,
    min: 1,
    help: 'Largest JSON answer of a chunk, refine or pipeline run, in bytes (larger → 413; an NDJSON stream is not one answer).',
  },
  'max-document-output-bytes': {
    env: 'CHUNKD_MAX_DOCUMENT_OUTPUT_BYTES',
    type: 'integer',
    default: 16 * 1024 * 1024,
    min: 1,
    help: "Largest result of one document in an NDJSON stream or a job, in bytes of JSON (larger → that document's line is a 413 error; the others go on).",
  },
  'max-structure-spans': {
    env: 'CHUNKD_MAX_STRUCTURE_SPANS',
    type: 'integer',
    default: 100_000,
    min: 0,
    help: "Most spans of each kind (headings, tables, code blocks, images, pages) a chef keeps of one document, wherever it runs (process routes, pipelines, jobs, uploads): past it, that kind's further spans are dropped and counted in the document's metadata.dropped_spans, and the text is still answered.",
  },
  'max-eval-work': {
    env: 'CHUNKD_MAX_EVAL_WORK',
    type: 'integer',
    default: 1_000_000,
    min: 1,
    help: 'Largest evaluation (POST /v1/evaluate, chunkd eval), counted as documents × candidates × questions (larger → 413).',
  },
  'max-eval-retrieved': {
    env: 'CHUNKD_MAX_EVAL_RETRIEVED',
    type: 'integer',
    default: 2_000_000,
    min: 1,
    help: 'Most chunks an evaluation may retrieve, counted before any chunking as questions × candidates × the sum of k (each k capped by the most chunks the documents could give, one per character); more → 413. With detail, every retrieved chunk is also written out, and the answer must fit --max-output-bytes.',
  },
  'max-pipeline-bytes': {
    env: 'CHUNKD_MAX_PIPELINE_BYTES',
    type: 'integer',
    default: 256 * 1024,
    min: 1,
    help: 'Largest stored pipeline, in bytes of JSON: its steps as stored (defaults filled in), name and description (larger → 413 on create and update).',
  },
  'max-file-bytes': {
    env: 'CHUNKD_MAX_FILE_BYTES',
    type: 'integer',
    default: 32 * 1024 * 1024,
    min: 1,
    help: 'Largest file POST /v1/files accepts, in bytes (larger → 413).',
  },
  'max-upload-bytes-in-flight': {
    env: 'CHUNKD_MAX_UPLOAD_BYTES_IN_FLIGHT',
    type: 'count',
    default: 'auto',
    min: 1,
    help: 'Most upload bytes (POST /v1/files bodies) held at once over all uploads in flight, counted from each Content-Length before its body is read (a chunked body as it arrives) until its answer; an upload past it → 503 with Retry-After, and one that could never fit → 413 (auto: room for 4 of the largest uploads, 4 × (--max-file-bytes + 2 MiB): 136 MiB with the default file limit).',
  },
  'max-files': {
    env: 'CHUNKD_MAX_FILES',
    type: 'integer',
    default: 1000,
    min: 1,
    help: 'Most uploaded files kept at once (one more → 507 until some are deleted or expire).',
  },
  'max-files-bytes': {
    env: 'CHUNKD_MAX_FILES_BYTES',
    type: 'integer',
    default: 1024 * 1024 * 1024,
    min: 1,
    help: 'Most bytes uploaded files may take at once, counting each file and its extracted text (over it → 507 until some are deleted or expire).',
  },
  'max-pdf-decoded-bytes': {
    env: 'CHUNKD_MAX_PDF_DECODED_BYTES',
    type: 'integer',
    default: 256 * 1024 * 1024,
    min: 1,
    help: "Most bytes one uploaded PDF's streams may decode to, summed over the file whatever their filters (more → 413).",
  },
  'max-extract-ms': {
    env: 'CHUNKD_MAX_EXTRACT_MS',
    type: 'integer',
    default: 30_000,
    min: 1,
    help: "Longest time one uploaded file's text extraction may take in its worker (longer → the worker is stopped and the upload answered 413). Keep it well below --request-timeout-ms.",
  },
  'max-extract-queue': {
    env: 'CHUNKD_MAX_EXTRACT_QUEUE',
    type: 'integer',
    default: 32,
    min: 0,
    help: 'Uploads that may wait for an extraction thread; one more → 503 with Retry-After.',
  },
  'extract-threads': {
    env: 'CHUNKD_EXTRACT_THREADS',
    type: 'count',
    default: 'auto',
    help: 'Threads that extract uploaded PDF, HTML and DOCX files (auto: 2, or 1 on one core); with 2 or more, one is kept for files of 256 KiB or less, so a small file never waits behind large ones.',
  },
  'file-expiry-seconds': {
    env: 'CHUNKD_FILE_EXPIRY_SECONDS',
    type: 'integer',
    default: 24 * 60 * 60,
    min: 0,
    help: 'How long an uploaded file is kept before it is deleted (then 404); 0: kept until deleted.',
  },
  'max-job-documents': {
    env: 'CHUNKD_MAX_JOB_DOCUMENTS',
    type: 'integer',
    default: 100_000,
    min: 1,
    help: 'Most documents in one job (POST /v1/jobs; more → 413).',
  },
  'max-job-bytes': {
    env: 'CHUNKD_MAX_JOB_BYTES',
    type: 'integer',
    default: 64 * 1024 * 1024,
    min: 1,
    help: 'Largest POST /v1/jobs body, in bytes (JSON or NDJSON; larger → 413). Streamed into the job store in batches, never held whole: separate from --max-body-bytes.',
  },
  'max-jobs-bytes': {
    env: 'CHUNKD_MAX_JOBS_BYTES',
    type: 'integer',
    default: 2 * 1024 * 1024 * 1024,
    min: 1,
    help: 'Storage quota of all jobs together, in bytes: documents waiting to run plus results kept (on PostgreSQL, across replicas). A submit over it → 507; a job whose results would pass it fails with that reason.',
  },
  'job-batch-size': {
    env: 'CHUNKD_JOB_BATCH_SIZE',
    type: 'integer',
    default: 32,
    min: 1,
    help: 'Documents a replica claims and runs at a time for a job (one queued batch); files chunkd ingest writes to its store at a time.',
  },
  'job-batch-expiry-s': {
    env: 'CHUNKD_JOB_BATCH_EXPIRY_S',
    type: 'integer',
    default: 60,
    min: 1,
    help: 'With --database-url: a batch claimed longer ago than this (its replica died, or it is still running) is handed to another replica; results are stored once whichever finishes first.',
  },
  'job-result-ttl-s': {
    env: 'CHUNKD_JOB_RESULT_TTL_S',
    type: 'integer',
    default: 86_400,
    min: 1,
    help: 'How long a finished or cancelled job and its results are kept, in seconds; then GET answers 404.',
  },
  'request-timeout-ms': {
    env: 'CHUNKD_REQUEST_TIMEOUT_MS',
    type: 'integer',
    default: 120_000,
    help: 'A request running longer is answered 504 and its work abandoned (0: no limit).',
  },
  'api-keys': {
    env: 'CHUNKD_API_KEYS',
    type: 'list',
    default: [] as string[],
    secret: true,
    help: 'API keys (comma-separated); when set, every route but /, /health, /ready, /openapi.json and the docs needs Authorization: Bearer <key>. On the command line they are visible to other local users (ps): prefer --api-keys-file.',
  },
  'api-keys-file': {
    env: 'CHUNKD_API_KEYS_FILE',
    type: 'string',
    default: '',
    help: 'A file of API keys, one per line (blank lines and # comments ignored), added to --api-keys. Unreadable or keyless: the server does not start.',
  },
  'cors-origins': {
    env: 'CHUNKD_CORS_ORIGINS',
    type: 'list',
    default: [] as string[],
    help: "Origins whose web pages may use this server from a browser (comma-separated, e.g. https://app.example): they may read answers (CORS) and send POST, PUT and DELETE, which browsers on other origins may not (403). The server's own origin is always allowed. * allows any origin, writes included.",
  },
  'keep-alive-timeout-ms': {
    env: 'CHUNKD_KEEP_ALIVE_TIMEOUT_MS',
    type: 'integer',
    default: 65_000,
    min: 0,
    help: 'How long an idle keep-alive connection stays open (0: until the client closes it). Keep it above the idle timeout of any load balancer or proxy in front (AWS ALB and nginx: 60 s), so that they, not chunkd, close idle connections: a request sent on a connection as chunkd closes it is reset (a 502 at the proxy).',
  },
  'shutdown-grace-ms': {
    env: 'CHUNKD_SHUTDOWN_GRACE_MS',
    type: 'integer',
    default: 10_000,
    help: 'On SIGTERM/SIGINT, how long in-flight requests may take to finish before the process exits.',
  },
  'plugins-dir': {
    env: 'CHUNKD_PLUGINS_DIR',
    type: 'list',
    default: [] as string[],
    help: 'Extra plugin folders (comma-separated); each subfolder with an index file becomes a plugin.',
  },
  'recipes-dir': {
    env: 'CHUNKD_RECIPES_DIR',
    type: 'string',
    default: '',
    help: 'Directory of extra recursive-chunker recipes (<name>_<lang>.json or <name>.json, Chonkie recipe format); they override shipped recipes of the same name.',
  },
  'models-dir': {
    env: 'CHUNKD_MODELS_DIR',
    type: 'list',
    default: [] as string[],
    help: 'Directories (comma-separated) holding tokenizer.json files and embedding model directories that requests may name, by path or relative to a directory; with the Hugging Face cache and the shipped models, the only places model files are read from.',
  },
  'model-map': {
    env: 'CHUNKD_MODEL_MAP',
    type: 'list',
    default: [] as string[],
    help: 'Requested model names served by installed models (comma-separated requested=installed, e.g. minishlab/potion-base-8M=/models/potion-base-8M): for clients whose default models this server cannot download. The installed side is a model directory under a model root, a cached Hugging Face name or chunkd/glove-sif-100d; it must exist at start. Logged at start; no other name is ever replaced.',
  },
  'llm-base-url': {
    env: 'CHUNKD_LLM_BASE_URL',
    type: 'string',
    default: '',
    help: 'OpenAI-compatible chat-completions server the slumber chunker asks for split points (e.g. http://127.0.0.1:8080/v1 for llama.cpp, http://127.0.0.1:11434/v1 for Ollama); unset: slumber answers 501.',
  },
  'llm-model': {
    env: 'CHUNKD_LLM_MODEL',
    type: 'string',
    default: '',
    help: 'Model name sent to the LLM server (Ollama and vLLM need one; llama.cpp serves its loaded model).',
  },
  'llm-api-key-file': {
    env: 'CHUNKD_LLM_API_KEY_FILE',
    type: 'string',
    default: '',
    help: "File holding the LLM server's API key, sent as a Bearer token (or set CHUNKD_LLM_API_KEY; the file wins).",
  },
  'llm-timeout-ms': {
    env: 'CHUNKD_LLM_TIMEOUT_MS',
    type: 'integer',
    default: 60_000,
    min: 1,
    help: 'Longest wait for one LLM answer; a call that takes longer is retried like a network error.',
  },
  'llm-max-calls': {
    env: 'CHUNKD_LLM_MAX_CALLS',
    type: 'integer',
    default: 50,
    min: 1,
    help: 'Most LLM questions one slumber request may ask (retries not counted); a text that needs more is refused with 413.',
  },
  workers: {
    env: 'CHUNKD_WORKERS',
    type: 'count',
    default: 'auto',
    help: 'Worker threads for large inputs and batches (auto: one per core; 0: run everything on the event loop).',
  },
  'worker-nice': {
    env: 'CHUNKD_WORKER_NICE',
    type: 'integer',
    default: 10,
    min: 0,
    max: 19,
    help: "How much lower the worker and extraction threads' CPU priority is than the event loop's (a nice increment; 0: the same), so the thread that answers every request gets a core first when the CPU is busy. Linux only: elsewhere it would lower the whole process.",
  },
} as const satisfies Record<string, SettingSpec>;

interface SettingSpec {
  env: string;
  /** count: a whole number, or 'auto' (the setting picks one from the machine). */
  type: 'string' | 'integer' | 'count' | 'boolean' | 'list';
  default: string | number | boolean | readonly string[];
  choices?: readonly string[];
  /** Never logged or echoed. */
  secret?: boolean;
  help: string;
  min?: number;
  max?: number;
}

type Spec = typeof SETTINGS;
type ValueOf<S extends SettingSpec> = S['type'] extends 'integer'
  ? number
  : S['type'] extends 'count'
    ? number | 'auto'
    : S['type'] extends 'boolean'
      ? boolean
      : S['type'] extends 'list'
        ? string[]
        : string;
type CamelCase<S extends string> = S extends `${infer A}-${infer B}` ? `${A}${Capitalize<CamelCase<B>>}` : S;
export type Settings = { [K in keyof Spec as CamelCase<K & string>]: ValueOf<Spec[K]> };

const camel = (s: string) => s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** How the operator sets a setting: its flag (without the dashes) and its environment variable, e.g. maxTexts → {flag: 'max-texts', env: 'CHUNKD_MAX_TEXTS'}. */
export function settingOf(name: keyof Settings): Setting {
  const flag = kebab(name) as keyof Spec;
  return { flag, env: SETTINGS[flag].env };
}

/** A setting's flag: `--max-texts`. */
export const flagOf = (name: keyof Settings): string => `--${settingOf(name).flag}`;

/** A setting's environment variable: `CHUNKD_MAX_TEXTS`. */
export const envOf = (name: keyof Settings): string => settingOf(name).env;

/** The stores setting as messages name it, with what it takes: `--stores FILE, CHUNKD_STORES`. */
export const storesSettingText = (): string => `${flagOf('stores')} FILE, ${envOf('stores')}`;

/** A setting as messages name it: `--max-texts (CHUNKD_MAX_TEXTS)`. */
export const settingText = (name: keyof Settings): string => settingName(settingOf(name));

/** A setting as a 413's limit names it: `--max-text-chars, CHUNKD_MAX_TEXT_CHARS`. */
export const settingPairText = (name: keyof Settings): string => settingPair(settingOf(name));

/** Resolve settings: a command-line flag wins over the environment, which wins over the default. */
export function resolveSettings(flags: Record<string, string | boolean | undefined>, env: NodeJS.ProcessEnv = process.env): Settings {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(SETTINGS) as [string, SettingSpec][]) {
    const raw = flags[name] ?? (env[spec.env] || undefined); // an empty variable counts as unset
    out[camel(name)] = raw === undefined ? spec.default : parseValue(name, spec, raw);
  }
  if (out.apiKeysFile)
    out.apiKeys = [...(out.apiKeys as string[]), ...readApiKeysFile(out.apiKeysFile as string, `--api-keys-file (${SETTINGS['api-keys-file'].env})`)];
  return out as Settings;
}

function parseValue(name: string, spec: SettingSpec, raw: string | boolean): unknown {
  const bad = (what: string) => new ChunkdError('BAD_REQUEST', `--${name} (${spec.env}) ${what}; got '${String(raw)}'.`);
  switch (spec.type) {
    case 'boolean':
      if (typeof raw === 'boolean') return raw;
      if (/^(1|true|yes|on)$/i.test(raw)) return true;
      if (/^(0|false|no|off|)$/i.test(raw)) return false;
      throw bad('must be true or false');
    case 'count':
      if (raw === 'auto') return raw;
    // falls through: otherwise a whole number
    case 'integer': {
      const n = Number(raw);
      if (!Number.isInteger(n) || n < (spec.min ?? 0) || n > (spec.max ?? Infinity))
        throw bad(`must be a whole number ${spec.max === undefined ? `≥ ${spec.min ?? 0}` : `from ${spec.min ?? 0} to ${spec.max}`}`);
      return n;
    }
    case 'list':
      return String(raw)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    default:
      if (spec.choices && !spec.choices.includes(String(raw))) throw bad(`must be one of ${spec.choices.join(', ')}`);
      return String(raw);
  }
}

/** `--help` text, derived from SETTINGS. */
export function helpText(): string {
  const rows = Object.entries(SETTINGS).map(([name, s]) => {
    const spec = s as SettingSpec;
    const value = spec.type === 'boolean' ? '' : ` <${spec.choices ? spec.choices.join('|') : spec.type}>`;
    return `  --${name}${value}\n      ${spec.help} Env ${spec.env}. Default: ${defaultText(spec)}.`;
  });
  return ['Usage: chunkd serve [options]', '', 'Options:', ...rows, '  --help\n      Show this help.'].join('\n');
}

/** A setting's default as the help and the README show it: an empty one (no list, no string) is "none". */
export function defaultText(spec: Pick<SettingSpec, 'default'>): string {
  const text = Array.isArray(spec.default) ? spec.default.join(',') : String(spec.default);
  return text === '' ? 'none' : text;
}
