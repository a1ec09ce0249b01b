/**
 * `chunkd chunk FILE…`: the plugins without a server. The files are a batch request, read and
 * checked as the HTTP routes read theirs (discovery, parseRequest, the limits, the plugin's own
 * config rules, validateSteps for --pipeline) and run document by document through the very
 * functions NDJSON streaming uses (service/document-runs/documents.ts). Bad input: the message on stderr
 * and exit code 2; nothing else on stderr unless it is a terminal (a progress bar).
 */
import { statSync, type Stats } from 'node:fs';
import { basename } from 'node:path';
import type { Chunk } from '../kernel/chunk.js';
import { discover } from '../kernel/discovery.js';
import { ChunkdError, isChunkdError, type Issue } from '../kernel/errors.js';
import type { Plugin, Registry } from '../kernel/registry.js';
import { inline } from '../kernel/engine/index.js';
import { parseRequest } from '../kernel/request.js';
import { closest } from '../kernel/suggest.js';
import { exportPluginSettings } from '../service/plugin-settings.js';
import { bodyCheck } from '../wire/body-check.js';
import { PipelineUpdate } from '../wire/pipelines.js';
import { validateSteps, type Step } from '../service/pipelines/steps.js';
import { envOf, resolveSettings, type Settings } from '../service/settings.js';
import { chunkerDocuments, eachDocument, pipelineDocuments, type DocumentLine, type Documents } from '../service/document-runs/documents.js';
import { fieldName, flagName, isBooleanField, typedValue } from './field-flags.js';
import { Progress } from './progress.js';
import { invalidUtf8At } from './utf8.js';
import { readRegularFile, UnreadableFile } from './read-file.js';

export const DEFAULT_CHUNKER = 'recursive';
const FORMATS = ['ndjson', 'json'] as const;
/** The command's own flags (everything else is a config field of the chunker). */
const OWN_FLAGS = ['--chunker', '--config', '--pipeline', '--format', '--help'];

export const CHUNK_HELP = `Usage: chunkd chunk FILE… [--chunker NAME] [--config JSON | --FIELD VALUE…] [--pipeline FILE.json] [--format ndjson|json]

Chunk files with the server's plugins, without a server. - reads standard input.

Options:
  --chunker NAME      The chunker (default: ${DEFAULT_CHUNKER}); GET /v1/plugins or the README lists them.
  --config JSON       Its config as a JSON object, as the HTTP route takes it (e.g. '{"chunk_size": 256}').
  --FIELD VALUE       One config field, typed by the chunker's schema: --chunk-size 256, --include-nodes,
                      --delimiters '.,!' (a list; a JSON list for items holding a comma: '[",", ";"]').
                      Wins over the same field in --config.
  --pipeline FILE     Run a pipeline's steps instead: a JSON file with "steps" (a POST /v1/pipelines body,
                      or a pipeline as GET /v1/pipelines/{id} answers it).
  --format FORMAT     ndjson (default): one line per chunk, {"file", ...chunk}; json: one list of
                      {"file", "chunks"}, in the order of the files.
  --help              Show this help.

Settings the server takes from the environment apply too (${envOf('pluginsDir')}, ${envOf('modelsDir')},
${envOf('maxTexts')}, ${envOf('maxTextChars')}, ...). Exit code 2 on bad input, with the reason on stderr.`;

/** Bad input: exit 2 with this message. */
export class Usage extends Error {}

interface Parsed {
  files: string[];
  chunker?: string;
  config?: string;
  pipeline?: string;
  format: (typeof FORMATS)[number];
  help: boolean;
  /** `--FIELD VALUE` pairs in order; the value is undefined for a flag given alone. */
  fields: [flag: string, value: string | undefined][];
}

export async function chunkCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // `chunkd chunk … | head`: the reader has all it wants; stop quietly, not with a stack.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => process.exit(e.code === 'EPIPE' ? 0 : 1));
  try {
    const parsed = parseArgs(args);
    if (parsed.help) {
      process.stdout.write(`${CHUNK_HELP}\n`);
      return 0;
    }
    const settings = readSettings(env);
    exportPluginSettings(settings);
    const registry = await discover(settings.pluginsDir);
    const plan = parsed.pipeline ? await pipelinePlan(registry, parsed, settings) : chunkerPlan(registry, parsed, settings);
    if (parsed.files.length === 0) throw new Usage('Name at least one file to chunk, or - for standard input. Run: chunkd chunk --help');
    const texts = await readFiles(parsed.files, settings);
    return await output(await plan(texts), parsed, texts);
  } catch (e) {
    return fail(e);
  }
}

function parseArgs(args: string[]): Parsed {
  const out: Parsed = { files: [], format: 'ndjson', help: false, fields: [] };
  const valueOf = (i: number, flag: string, inline?: string) => {
    if (inline !== undefined) return inline;
    const next = args[i + 1];
    if (next === undefined || (next.startsWith('--') && next.length > 2)) throw new Usage(`${flag} needs a value. Run: chunkd chunk --help`);
    return next;
  };
  let options = true;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!options || !arg.startsWith('--') || arg === '-') {
      out.files.push(arg);
      continue;
    }
    if (arg === '--') {
      options = false;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined;
    const take = () => {
      const v = valueOf(i, flag, inline);
      if (inline === undefined) i++;
      return v;
    };
    switch (flag) {
      case '--help':
        out.help = true;
        break;
      case '--chunker':
        out.chunker = take();
        break;
      case '--config':
        out.config = take();
        break;
      case '--pipeline':
        out.pipeline = take();
        break;
      case '--format': {
        const f = take();
        if (!(FORMATS as readonly string[]).includes(f)) throw new Usage(`--format must be one of ${FORMATS.join(', ')}; got '${f}'.`);
        out.format = f as Parsed['format'];
        break;
      }
      default: {
        // A config field: a following word that is not a flag is its value (a boolean field gives back a word that is not one: a file).
        const next = args[i + 1];
        const takesNext = inline === undefined && options && next !== undefined && !(next.startsWith('--') && next.length > 2);
        out.fields.push([flag, inline ?? (takesNext ? args[++i] : undefined)]);
      }
    }
  }
  return out;
}

export function readSettings(env: NodeJS.ProcessEnv): Settings {
  try {
    return resolveSettings({}, env);
  } catch (e) {
    throw new Usage((e as Error).message);
  }
}

/**
 * How the CLI runs a chef: in one extraction worker (the rest of the CLI runs inline), so the
 * server's --max-extract-ms (CHUNKD_MAX_EXTRACT_MS) stops it as it stops an upload's.
 */

/** Bytes a text of `maxTextChars` characters may take in UTF-8 (4 per character at most). */
const byteCap = (settings: Settings) => settings.maxTextChars * 4;

/**
 * Each file's text (UTF-8), in order; `-` is standard input (read once, however often named).
 * The limits are checked before anything is read (the number of files; each file's size from
 * stat; a named file must be a regular file: a FIFO or a device may never end), every file and
 * standard input is read with a byte cap (a file may grow after its stat), then each text's length: the
 * same limits as the HTTP routes, said in the CLI's terms (which file, which CHUNKD_* variable).
 */
async function readFiles(files: string[], settings: Settings): Promise<string[]> {
  if (files.length > settings.maxTexts) {
    throw new Usage(
      `${files.length.toLocaleString('en')} files were named; the limit is ${settings.maxTexts.toLocaleString('en')} per run. Name fewer files, or raise ${envOf('maxTexts')}.`,
    );
  }
  const tooBig = (file: string, what: string) =>
    new Usage(
      `${file === '-' ? 'Standard input' : file} ${what}; the limit is ${settings.maxTextChars.toLocaleString('en')} characters per file. Split it, or raise ${envOf('maxTextChars')}.`,
    );
  for (const file of files) {
    if (file === '-') continue;
    let stat: Stats;
    try {
      stat = statSync(file);
    } catch (e) {
      throw unreadable(file, e);
    }
    if (stat.isDirectory()) throw unreadable(file, { code: 'EISDIR' });
    if (!stat.isFile())
      throw new Usage(`Cannot read ${file}: it is not a regular file (a pipe, device or socket may never end). Name a regular file, or - for standard input.`);
    if (stat.size > byteCap(settings)) throw tooBig(file, `has ${stat.size.toLocaleString('en')} bytes, more than any text within the limit`);
  }
  let stdin: Promise<Buffer> | undefined;
  const texts: string[] = [];
  for (const file of files) {
    let bytes: Buffer;
    try {
      if (file === '-')
        bytes = await (stdin ??= readCapped(process.stdin, byteCap(settings), () => tooBig(file, 'holds more bytes than any text within the limit')));
      else
        bytes = readRegularFile(file, byteCap(settings), (size) => tooBig(file, `has ${size.toLocaleString('en')} bytes, more than any text within the limit`));
    } catch (e) {
      throw e instanceof Usage || e instanceof UnreadableFile ? e : unreadable(file, e);
    }
    // As the server refuses them (422): invalid bytes are never replaced by U+FFFD behind the user's back.
    const bad = invalidUtf8At(bytes);
    if (bad >= 0) {
      throw new Usage(
        `${file === '-' ? 'Standard input' : file} is not valid UTF-8: the first invalid byte (0x${bytes[bad]!.toString(16).padStart(2, '0')}) is at byte offset ${bad}. Convert it to UTF-8 (e.g. iconv -f latin1 -t utf-8) and run again.`,
      );
    }
    const text = bytes.toString('utf8');
    if (text.length > settings.maxTextChars) throw tooBig(file, `has ${text.length.toLocaleString('en')} characters`);
    texts.push(text);
  }
  return texts;
}

/** A stream's bytes, refused (the stream left unread) once they pass `cap`. */
async function readCapped(stream: NodeJS.ReadableStream & { destroy(): void }, cap: number, tooBig: () => Error): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of stream) {
    size += (part as Buffer).length;
    if (size > cap) {
      stream.destroy();
      throw tooBig();
    }
    parts.push(part as Buffer);
  }
  return Buffer.concat(parts);
}

function unreadable(file: string, e: unknown): Usage {
  const code = (e as { code?: string }).code;
  const why =
    code === 'ENOENT' ? 'it does not exist' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
  return new Usage(`Cannot read ${file}: ${why}. Name a readable text file, or - for standard input.`);
}

/** The documents the texts make, checked as a request: what is wrong with the flags is found before any file is read. */
type Plan = (texts: string[]) => Promise<Documents>;

function chunkerPlan(registry: Registry, parsed: Parsed, settings: Settings): Plan {
  const name = parsed.chunker ?? DEFAULT_CHUNKER;
  const plugin = registry.find('chunker', name);
  if (!plugin) throw new Usage(`${registry.unknownMessage('chunker', name)} Run: chunkd chunk FILE --chunker NAME`);
  const config = { ...jsonConfig(parsed.config), ...fieldConfig(plugin, parsed) };
  const ignored = Object.keys(config).filter((k) => !plugin.knownKeys.has(k) || k === 'text');
  if (ignored.length) throw new Usage(`--config has keys the ${name} chunker does not take: ${ignored.join(', ')}. It takes: ${plugin.configKeys.join(', ')}.`);
  return async (texts) => chunkerDocuments(plugin, parseRequest(plugin, { ...config, text: texts }), inline, settings);
}

function jsonConfig(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    throw new Usage(`--config is not valid JSON (${(e as Error).message}): send an object, e.g. --config '{"chunk_size": 256}'.`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Usage(`--config must be a JSON object, e.g. --config '{"chunk_size": 256}'.`);
  return value as Record<string, unknown>;
}

/** The `--FIELD VALUE` flags as config, each typed by the chunker's schema; an unknown one gets a did-you-mean. */
function fieldConfig(plugin: Plugin, { fields, files }: Parsed): Record<string, unknown> {
  const properties = plugin.body.properties as Record<string, Record<string, unknown>>;
  const known = Object.keys(properties).filter((k) => k !== 'text');
  const out: Record<string, unknown> = {};
  for (const [flag, value] of fields) {
    const field = fieldName(flag.slice(2));
    if (!known.includes(field)) {
      const flags = [...OWN_FLAGS, ...known.map(flagName)];
      const guess = closest(flag, flags);
      throw new Usage(`Unknown option '${flag}' for the ${plugin.name} chunker.${guess ? ` Did you mean '${guess}'?` : ''} It takes: ${flags.join(', ')}.`);
    }
    if (isBooleanField(properties[field]) && value !== undefined && !/^(true|false|yes|no|on|off|1|0)$/i.test(value)) {
      files.push(value); // `--include-nodes main.py`: the flag alone, then a file
      out[field] = true;
      continue;
    }
    if (value === undefined && !isBooleanField(properties[field])) throw new Usage(`${flag} needs a value. Run: chunkd chunk --help`);
    out[field] = value === undefined ? true : typedValue(properties[field], value, flag);
  }
  return out;
}

async function pipelinePlan(registry: Registry, parsed: Parsed, settings: Settings): Promise<Plan> {
  if (parsed.chunker !== undefined || parsed.config !== undefined || parsed.fields.length) {
    throw new Usage('--pipeline runs the steps in its file: leave out --chunker, --config and config fields (or change the file).');
  }
  const file = parsed.pipeline!;
  let raw: unknown;
  try {
    const tooBig = (size: number) =>
      new Usage(
        `The pipeline ${file} has ${size.toLocaleString('en')} bytes; a pipeline body may have ${settings.maxBodyBytes.toLocaleString('en')} (${envOf('maxBodyBytes')}).`,
      );
    raw = JSON.parse(readRegularFile(file, settings.maxBodyBytes, tooBig, 'pipeline').toString('utf8'));
  } catch (e) {
    if (e instanceof Usage || e instanceof UnreadableFile) throw e;
    throw new Usage(`Cannot read the pipeline ${file}: ${(e as Error).message}. It must be a JSON object with "steps", as POST /v1/pipelines takes.`);
  }
  const body = bodyCheck<{ name?: string; steps?: Step[] }>(PipelineUpdate)(raw, () => {});
  if (!body.steps) throw new Usage(`The pipeline ${file} has no "steps": add them, as POST /v1/pipelines takes them.`);
  const steps = await validateSteps(registry, body.steps, ['steps']);
  const pipeline = { id: file, name: body.name ?? basename(file), description: null, steps, created_at: '', updated_at: '' };
  return (texts) =>
    pipelineDocuments(pipeline, { text: texts, offset_unit: 'codepoint', return_type: 'chunks' }, { registry, executor: inline, settings, isolate: true });
}

/** Run the documents, writing chunks as they come (ndjson) or all at the end (json). Exit 2 when a document failed on its input. */
async function output(docs: Documents, parsed: Parsed, texts: string[]): Promise<number> {
  const names = parsed.files.map((f) => (f === '-' ? '-' : f));
  const progress = process.stderr.isTTY
    ? new Progress(
        process.stderr,
        docs.total,
        texts.map((t) => Buffer.byteLength(t)),
      )
    : undefined;
  const results: (Chunk[] | string[])[] = [];
  let status = 0;
  await eachDocument(
    docs,
    async (line: DocumentLine) => {
      progress?.done(line.index);
      if ('error' in line) {
        const err = new ChunkdError(line.error.code, line.error.detail);
        progress?.clear();
        process.stderr.write(`${names[line.index]}: ${message(err)}\n`);
        status = Math.max(status, err.status >= 500 ? 1 : 2);
        results[line.index] = [];
        return;
      }
      const chunks = JSON.parse(Buffer.from(line.bytes).toString('utf8')) as Chunk[] | string[]; // each record is re-shaped with its file name
      results[line.index] = chunks;
      if (parsed.format === 'ndjson') {
        const file = names[line.index];
        const out = chunks.map((c) => JSON.stringify(typeof c === 'string' ? { file, text: c } : { file, ...c })).join('\n');
        if (out) await write(`${out}\n`);
      }
    },
    { concurrency: 1, onBug: (e) => process.stderr.write(`${String((e as Error)?.stack ?? e)}\n`) },
  );
  progress?.finish();
  if (parsed.format === 'json') await write(`${JSON.stringify(names.map((file, i) => ({ file, chunks: results[i] ?? [] })))}\n`);
  return status;
}

function write(text: string): Promise<void> {
  return new Promise((resolve) => (process.stdout.write(text) ? resolve() : process.stdout.once('drain', resolve)));
}

/** A refusal as a person reads it: the message, or each issue with the flag it is about. */
function message(e: ChunkdError): string {
  if (typeof e.detail === 'string') return e.detail;
  return e.detail.map((i: Issue) => `${where(i.loc)}: ${i.msg}`).join('\n');
}

function where(loc: (string | number)[]): string {
  const [first, second, ...rest] = loc;
  if (first === 'body' && second === 'text') return rest.length ? `file ${Number(rest[0]) + 1}` : 'the files';
  if (first === 'body' && typeof second === 'string') return [flagName(second), ...rest].join('.');
  return loc.join('.');
}

export function fail(e: unknown): number {
  if (e instanceof Usage || e instanceof UnreadableFile) {
    process.stderr.write(`${e.message}\n`);
    return 2;
  }
  if (isChunkdError(e) && e.status < 500) {
    process.stderr.write(`${message(e)}\n`);
    return 2;
  }
  process.stderr.write(`${isChunkdError(e) ? message(e) : String((e as Error)?.stack ?? e)}\n`);
  return 1;
}
