/**
 * `chunkd ingest DIR [--pipeline FILE]`: every file under DIR through a pipeline (the default
 * preset's, cli/ingest-defaults.ts, when none is named) whose last step writes to a store (a connection of this server's settings), without a server, through the very
 * runner and Stores service the HTTP routes use. A document's id is its path under DIR.
 * Resumable: each document written is recorded with its content's SHA-256 in the data directory
 * (ingest/<store>/<collection>.ndjson, appended once the store confirmed), and a later run skips a
 * document whose content has not changed.
 */
import { hash } from 'node:crypto';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { discover } from '../kernel/discovery.js';
import { ChunkdError, isChunkdError } from '../kernel/errors.js';
import { inline } from '../kernel/engine/index.js';
import { exportPluginSettings } from '../service/plugin-settings.js';
import { bodyCheck } from '../wire/body-check.js';
import { PipelineUpdate } from '../wire/pipelines.js';
import { validateSteps, type Step } from '../service/pipelines/steps.js';
import { envOf, settingPairText, type Settings } from '../service/settings.js';
import { readRegularFile } from './read-file.js';
import { eachDocument, pipelineDocuments } from '../service/document-runs/documents.js';
import { Stores } from '../service/stores/stores.js';
import { DataDirInUseError, lockDataDir } from '../service/storage/data-dir-lock.js';
import { readFile } from '../service/files/upload.js';
import { runnerOf } from '../service/limits.js';
import { readSettings, Usage } from './chunk.js';
import { collectionOf, defaultSteps, defaultStore, rememberIngest } from './ingest-defaults.js';
import { DEFAULT_STORE } from '../service/stores/connections.js';
import { checkUserMetadata } from '../wire/metadata.js';
import { MAX_DOCUMENTS_PAGE } from '../wire/stores.js';
import { cliArgs } from './cli-args.js';
import { Progress } from './progress.js';
import { errorText } from './error-text.js';
import { INGEST_BATCH_CHARS, IngestWrites } from './ingest-writes.js';

export const INGEST_HELP = `Usage: chunkd ingest DIR [--collection NAME] [--store NAME] [--metadata FILE.json] [--pipeline FILE.json]

Write every file under DIR to a store, each read by the chef its type needs (PDF, DOCX, HTML,
markdown, CSV, text), as an upload is, under the same limits; a file that fails is reported by its
path and skipped, and the run goes on (exit code 1 at the end when any failed).
Without --pipeline: the default preset ("chef": "auto", then passage chunks of at most 400
tokens), the default store, and a collection named after DIR (--collection, --store override).
--pipeline FILE holds "steps", the last a write step ({"type": "write", "store": "default",
"config": {"collection": "docs"}}). A document's id and metadata.name are its path under DIR;
--metadata FILE.json gives metadata for every file ("*") and by path: {"*": {"team": "docs"},
"guide/intro.pdf": {"lang": "en"}}. A file whose content and metadata were already written is
skipped, so an interrupted run picks up where it stopped. Stores are the server's settings
(${envOf('stores')}, the data directory ${envOf('dataDir')}); then: chunkd search "a question".`;

export async function ingestCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let stores: Stores | undefined;
  let unlock = () => {};
  try {
    const { positional, flags } = cliArgs(args, ['pipeline', 'collection', 'store', 'metadata'], ['help'], 'chunkd ingest --help');
    if (flags.help) {
      process.stdout.write(`${INGEST_HELP}\n`);
      return 0;
    }
    const [dir, ...extra] = positional;
    if (dir === undefined || extra.length) throw new Usage('Name one directory to ingest. Run: chunkd ingest --help');
    const files = listFiles(dir);
    const metadata = flags.metadata === undefined ? undefined : readMetadata(String(flags.metadata), new Set(files.map((f) => f.id)));
    const settings = readSettings(env);
    unlock = lockIngest(settings.dataDir);
    exportPluginSettings(settings);
    const registry = await discover(settings.pluginsDir);
    stores = Stores.fromSettings(registry, settings);
    const named = {
      store: flags.store === undefined ? undefined : String(flags.store),
      collection: flags.collection === undefined ? undefined : String(flags.collection),
    };
    const steps =
      flags.pipeline === undefined
        ? await validateSteps(
            registry,
            defaultSteps(named.store ?? defaultStore(stores.names()) ?? DEFAULT_STORE, named.collection ?? collectionOf(dir)),
            ['steps'],
            stores,
          )
        : await readPipeline(String(flags.pipeline), registry, stores, named);
    const write = steps.at(-1)!;
    const target = { store: write.store!, collection: (write.config as { collection: string }).collection };
    const record = new IngestLog(settings, target.store, target.collection, await storedDocuments(stores, target.store, target.collection));
    const pipelineName = flags.pipeline === undefined ? 'default preset' : String(flags.pipeline);
    const pipeline = { id: pipelineName, name: basename(pipelineName), description: null, steps, created_at: '', updated_at: '' };
    const progress = process.stderr.isTTY
      ? new Progress(
          process.stderr,
          files.length,
          files.map((f) => f.size),
        )
      : undefined;
    const counts = { written: 0, skipped: 0, failed: 0 };
    const failed = (id: string, why: string) => {
      counts.failed++;
      progress?.clear();
      process.stderr.write(`${id}: ${why}\n`);
    };
    // Written as a job's batches are: job-batch-size files at a time, or fewer when their text passes INGEST_BATCH_CHARS.
    const writes = new IngestWrites(
      stores,
      { files: settings.jobBatchSize, chars: INGEST_BATCH_CHARS },
      {
        written: (id, digest) => (record.add(id, digest), counts.written++),
        failed,
      },
    );
    const deps = { registry, executor: inline, settings, services: { stores: writes.service }, isolate: true };
    const reader = { registry, runner: runnerOf(inline, settings, true), settings };
    for (const [i, file] of files.entries()) {
      const meta = metadata?.(file.id);
      // Refused by its size before it is read (a file of gigabytes would not fit in memory), and skipped: the run goes on.
      const bytes = readIngested(file, settings.maxFileBytes, (why) => failed(file.id, why));
      if (!bytes) {
        progress?.done(i);
        continue;
      }
      const digest = hash('sha256', bytes, 'hex') + (meta ? `:${hash('sha256', JSON.stringify(meta), 'hex')}` : '');
      if (record.has(file.id, digest)) {
        counts.skipped++;
      } else {
        let error: string | undefined;
        let chars = 0;
        try {
          // Read as an upload is (service/files/upload.ts): the chef its type needs, under the same limits.
          const { format, document } = await readFile(reader, { bytes, filename: basename(file.path) });
          chars = document.text.length;
          const docs = await pipelineDocuments(
            pipeline,
            { text: [document.text], offset_unit: 'codepoint', return_type: 'chunks', document: [file.id], ...(meta ? { metadata: meta } : {}) },
            deps,
            undefined,
            { format, name: file.id, ...(document.structureJson ? { structureJson: document.structureJson } : {}) },
          );
          await eachDocument(docs, (line) => void ('error' in line ? (error = line.error.message) : undefined), { concurrency: 1 });
        } catch (e) {
          // Whatever one file does (a limit, a chef's failure, a string past V8's length), it is reported by its path and the run goes on.
          error = isChunkdError(e) ? errorText(e) : String((e as Error)?.message ?? e);
        }
        if (error === undefined) await writes.ran(file.id, digest, chars);
        else failed(file.id, error);
      }
      progress?.done(i);
    }
    await writes.flush();
    progress?.finish();
    if (counts.written + counts.skipped > 0) rememberIngest(settings.dataDir, target.store, target.collection);
    if (counts.failed)
      process.stderr.write(
        `${counts.failed} of ${files.length} files not written (each named above, with the setting to raise where a limit refused it); ${counts.written} written, ${counts.skipped} unchanged. Run again once fixed: written files are skipped.\n`,
      );
    process.stdout.write(`${JSON.stringify({ files: files.length, ...counts, ...target })}\n`);
    return counts.failed ? 1 : 0;
  } catch (e) {
    if (e instanceof Usage) {
      process.stderr.write(`${e.message}\n`);
      return 2;
    }
    if (isChunkdError(e)) {
      process.stderr.write(`${errorText(e)}\n`);
      return e.status >= 500 ? 1 : 2;
    }
    throw e;
  } finally {
    await stores?.close();
    unlock();
  }
}

/** The data directory's lock (one writer at a time: a running server holds it); held, a usage error naming the holder. */
function lockIngest(dataDir: string): () => void {
  try {
    return lockDataDir(dataDir, 'chunkd ingest');
  } catch (e) {
    if (e instanceof DataDirInUseError) throw new Usage(e.message);
    throw e;
  }
}

/** The documents the collection holds now (a document deleted or a collection dropped since a run is written again); undefined when the store cannot list them. */
async function storedDocuments(stores: Stores, store: string, collection: string): Promise<Set<string> | undefined> {
  const found = new Set<string>();
  let cursor: string | undefined;
  try {
    do {
      const page = await stores.documents(store, collection, { limit: MAX_DOCUMENTS_PAGE, ...(cursor ? { cursor } : {}) });
      for (const d of page.documents) found.add(d.document);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  } catch (e) {
    if (isChunkdError(e) && e.code === 'NOT_FOUND') return found; // no collection yet
    if (isChunkdError(e) && e.code === 'BAD_REQUEST') return undefined;
    throw e;
  }
  return found;
}

/**
 * The metadata sidecar: {"*": {...}, "<path under DIR>": {...}}, each checked as a request's
 * metadata is (wire/metadata.ts); a file's metadata is "*"'s with its own over it.
 */
function readMetadata(file: string, paths: Set<string>): (path: string) => Record<string, unknown> | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Usage(
      `Cannot read the metadata ${file}: ${(e as Error).message}. It must be a JSON object: {"*": {"team": "docs"}, "guide/intro.pdf": {"lang": "en"}}.`,
    );
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new Usage(`The metadata ${file} must be a JSON object: {"*": {...for every file}, "<path under DIR>": {...}}.`);
  const byPath = new Map<string, Record<string, unknown>>();
  for (const [path, value] of Object.entries(raw as Record<string, unknown>)) {
    if (path !== '*' && !paths.has(path))
      throw new Usage(`The metadata ${file} names '${path}', which is no file under the directory: use paths as they are under it, with /.`);
    try {
      byPath.set(path, checkUserMetadata(value, [path]));
    } catch (e) {
      if (isChunkdError(e)) throw new Usage(`The metadata ${file}: ${errorText(e)}`);
      throw e;
    }
  }
  return (path) => {
    const meta = { ...byPath.get('*'), ...byPath.get(path) };
    if (!Object.keys(meta).length) return undefined;
    try {
      return checkUserMetadata(meta, [path]);
    } catch (e) {
      if (isChunkdError(e)) throw new Usage(`The metadata ${file}: ${errorText(e)}`);
      throw e;
    }
  };
}

async function readPipeline(
  file: string,
  registry: Awaited<ReturnType<typeof discover>>,
  stores: Stores,
  named: { store?: string; collection?: string },
): Promise<Step[]> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Usage(`Cannot read the pipeline ${file}: ${(e as Error).message}. It must be a JSON object with "steps", as POST /v1/pipelines takes.`);
  }
  const body = bodyCheck<{ steps?: Step[] }>(PipelineUpdate)(raw, () => {});
  if (!body.steps) throw new Usage(`The pipeline ${file} has no "steps": add them, as POST /v1/pipelines takes them.`);
  const last = body.steps.at(-1);
  // --store and --collection name the write step's store and collection.
  if (last?.type === 'write' && (named.store || named.collection))
    body.steps[body.steps.length - 1] = {
      ...last,
      ...(named.store ? { store: named.store } : {}),
      config: { ...last.config, ...(named.collection ? { collection: named.collection } : {}) },
    };
  const steps = await validateSteps(registry, body.steps, ['steps'], stores);
  if (steps.at(-1)?.type !== 'write')
    throw new Usage(`The pipeline ${file} does not end in a write step: add {"type": "write", "store": "default", "config": {"collection": "docs"}}.`);
  return steps;
}

/**
 * A file's bytes, or undefined when it is refused (reported through `failed`): one over
 * --max-file-bytes by its size, before a byte is read, naming the setting; one that cannot be read.
 */
function readIngested(file: { path: string; id: string; size: number }, maxBytes: number, failed: (why: string) => void): Buffer | undefined {
  const tooBig = (size: number) =>
    new ChunkdError(
      'TOO_LARGE',
      `the file is ${size.toLocaleString('en')} bytes, over the ${maxBytes.toLocaleString('en')} a file may have (${settingPairText('maxFileBytes')}): skipped. Raise the setting to write it, or split the file.`,
    );
  try {
    if (file.size > maxBytes) throw tooBig(file.size);
    return readRegularFile(file.path, maxBytes, tooBig);
  } catch (e) {
    failed(isChunkdError(e) ? errorText(e) : (e as Error).message);
    return undefined;
  }
}

/** Every regular file under `dir`, by path (sorted, so runs and their progress are repeatable); its id is its path under `dir`, with /. */
function listFiles(dir: string): { path: string; id: string; size: number }[] {
  const root = resolve(dir);
  let entries: string[];
  try {
    if (!statSync(root).isDirectory()) throw new Usage(`${dir} is not a directory: name the directory to ingest.`);
    entries = readdirSync(root, { recursive: true }) as string[];
  } catch (e) {
    if (e instanceof Usage) throw e;
    throw new Usage(`Cannot read ${dir}: ${(e as Error).message}.`);
  }
  return entries
    .map((e) => join(root, e))
    .filter((p) => statSync(p).isFile())
    .sort()
    .map((p) => ({ path: p, id: relative(root, p).split(sep).join('/'), size: statSync(p).size }));
}

/** What earlier runs wrote to this collection: document id → content SHA-256, appended once written (a torn last line is ignored). */
class IngestLog {
  private readonly file: string;
  private readonly seen = new Map<string, string>();

  /** `stored`: the documents the collection holds, when the store lists them: one recorded but gone since (deleted, dropped) is written again. */
  constructor(
    settings: Settings,
    store: string,
    collection: string,
    private readonly stored?: Set<string>,
  ) {
    const dir = join(settings.dataDir, 'ingest', store);
    mkdirSync(dir, { recursive: true });
    this.file = join(dir, `${collection}.ndjson`);
    let text = '';
    try {
      text = readFileSync(this.file, 'utf8');
    } catch {
      // first run
    }
    for (const line of text.split('\n')) {
      try {
        const { document, sha256 } = JSON.parse(line) as { document: string; sha256: string };
        this.seen.set(document, sha256);
      } catch {
        // a blank or torn line
      }
    }
  }

  has(document: string, digest: string): boolean {
    return this.seen.get(document) === digest && (this.stored?.has(document) ?? true);
  }

  add(document: string, digest: string): void {
    appendFileSync(this.file, `${JSON.stringify({ document, sha256: digest })}\n`);
    this.seen.set(document, digest);
  }
}
