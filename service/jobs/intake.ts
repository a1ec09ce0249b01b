/**
 * Job intake, the use case: a job body (JSON or NDJSON), pulled a piece at a time from wherever it
 * arrives (an HTTP request, server/jobs/body-source.ts), split as it arrives (wire/job-split.ts),
 * its documents checked and stored in batches under the jobs' quota, and the job queued only once
 * the whole body was read and checked.
 */
import { createHash, randomUUID } from 'node:crypto';
import { tooLarge } from '../../kernel/caps.js';
import { ChunkdError, gatherIssues, validationError, type Issue } from '../../kernel/errors.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import type { Registry } from '../../kernel/registry.js';
import { compileValidator, MAX_ISSUES } from '../../kernel/validation.js';
import { validateSteps, type Step } from '../pipelines/steps.js';
import { checkWriteTarget } from '../pipelines/write-step.js';
import { checkJsonShape } from '../../kernel/json-shape.js';
import { flagOf, settingOf, settingPairText, type Settings } from '../settings.js';
import type { PipelineStore } from '../storage/store.js';
import type { StoresService } from '../stores/service.js';
import { JsonJobSplitter, NdjsonJobSplitter, type JobPiece } from '../../wire/job-split.js';
import { JobHeader, JobDocumentInput } from '../../wire/jobs.js';
import { checkUserMetadata } from '../../wire/metadata.js';
import type { FileStore } from '../files/store.js';
import { storedMeta } from './doc-meta.js';
import { documentBytes, JobQuotaError, type JobDocument, type JobIntake, type JobStore, type JobView } from './store.js';

type Header = { pipeline_id?: string; steps?: Step[]; offset_unit: OffsetUnit };
type DocIn = { id?: string; text?: string; file?: string; metadata?: Record<string, unknown> };
const checkHeader = compileValidator<Header>(JobHeader);
const checkDocument = compileValidator<DocIn>(JobDocumentInput);

/** A job body's bytes as they arrive: null at its end; `stop()` leaves the rest unread. */
export interface BodySource {
  next(): Promise<Buffer | null>;
  stop(): void;
}

/** Documents stored per write while a body arrives: whichever of the two comes first. */
const BATCH_DOCUMENTS = 1000;
const BATCH_BYTES = 4 * 1024 * 1024;

export interface IntakeDeps {
  registry: Registry;
  settings: Pick<Settings, 'maxJobDocuments'>;
  pipelines: PipelineStore;
  store: JobStore;
  /** The store connections a write step names. */
  stores?: StoresService;
  /** The uploaded files a document may name (`file`). */
  files?: Pick<FileStore, 'get' | 'text' | 'structureJson'>;
}

/**
 * Receive a job body, JSON (`{pipeline_id | steps, offset_unit?, documents: [{id?, text}]}`) or
 * NDJSON (Content-Type application/x-ndjson: the same header object on the first line, then one
 * document object per line), and store it: the body is read up to --max-job-bytes, split as it
 * arrives (json-split.ts: each document parsed alone), and its documents stored in batches, each
 * reserved against --max-jobs-bytes, so memory stays that of one batch whatever the body's size.
 * Nothing is visible until the whole body was read and checked: every problem is a 422 at its loc
 * (an NDJSON line's loc is ['body', <line number>]) and what was stored is deleted.
 */
export async function receiveJob(body: BodySource, ndjson: boolean, deps: IntakeDeps): Promise<JobView> {
  const { settings } = deps;
  const splitter = ndjson ? new NdjsonJobSplitter() : new JsonJobSplitter();
  const id = randomUUID();
  const createdAt = new Date().toISOString();
  const issues: Issue[] = [];
  const fields: Record<string, unknown> = {};
  let header: { value: unknown; loc: (string | number)[] } | undefined;
  let documents = 0;
  let intake: JobIntake | undefined;
  let batch: JobDocument[] = [];
  let batchBytes = 0;
  const ids = new RepeatedIds();
  const flush = async () => {
    if (issues.length || batch.length === 0) return;
    intake ??= await deps.store.receive(id, createdAt);
    const part = batch;
    batch = [];
    batchBytes = 0;
    await intake.add(part);
  };
  try {
    for (;;) {
      const chunk = await body.next();
      const pieces: JobPiece[] = chunk === null ? splitter.end() : splitter.write(chunk);
      let broken = false;
      for (const p of pieces) {
        if (p.kind === 'error') {
          issues.push({ loc: p.loc, msg: p.msg, type: 'json_invalid' });
          broken ||= !ndjson; // a JSON body cannot be read past its first syntax error; NDJSON goes on at the next line
        } else if (p.kind === 'field') fields[p.key] = p.value;
        else if (p.kind === 'header') header = { value: p.value, loc: p.loc };
        else {
          if (++documents > settings.maxJobDocuments) {
            throw tooLarge('The job has too many documents', settings.maxJobDocuments, settingOf('maxJobDocuments'), 'Split them over several jobs');
          }
          const found = checked(p.value, p.loc, p.index, issues);
          const doc = found && 'file' in found ? await fileDocument(found, p.index, deps, issues) : found;
          if (doc) ids.add(doc.id, p.index);
          if (doc && !issues.length) {
            batch.push(doc);
            batchBytes += documentBytes(doc);
            if (batch.length >= BATCH_DOCUMENTS || batchBytes >= BATCH_BYTES) await flush();
          }
        }
      }
      if (chunk === null || broken || issues.length >= MAX_ISSUES) break;
    }
    if (!issues.length) {
      if (ndjson && !header)
        issues.push({
          loc: ['body'],
          msg: `The NDJSON body is empty: send a header line ({"pipeline_id": …} or {"steps": […]}), then one {"id", "text"} per line.`,
          type: 'missing',
        });
      if (!ndjson && !(splitter as JsonJobSplitter).hasDocuments && !('documents' in fields))
        issues.push({ loc: ['body', 'documents'], msg: "Field required: add 'documents'.", type: 'missing' });
      if (!ndjson && 'documents' in fields)
        issues.push({ loc: ['body', 'documents'], msg: 'documents must be a list of {"id", "text"} objects.', type: 'list_type' });
    }
    const meta = issues.length ? undefined : headerOf(ndjson ? header!.value : fields, ndjson ? header!.loc : ['body'], issues);
    if (issues.length) throw new ChunkdError('VALIDATION', issues.slice(0, MAX_ISSUES));
    const steps = await stepsOf(meta!, deps);
    // Written to a store, two documents of one id would be one: the second replacing the first.
    if (ids.repeated && steps.some((s) => s.type === 'write')) {
      const { index, first, id: repeated } = ids.repeated;
      throw validationError(
        ['body', 'documents', index, 'id'],
        `documents ${first} and ${index} have one id ('${repeated.slice(0, 100)}'; a document without an id has its index): the job writes to a store, which keeps one document per id. Give each document its own id.`,
      );
    }
    await flush();
    intake ??= await deps.store.receive(id, createdAt);
    return await intake.commit({ pipeline_id: meta!.pipeline_id ?? null, steps, offset_unit: meta!.offset_unit });
  } catch (e) {
    body.stop();
    await intake?.abort().catch(() => {});
    if (e instanceof JobQuotaError) {
      throw new ChunkdError(
        'INSUFFICIENT_STORAGE',
        `The jobs are at their storage quota of ${e.quota} bytes (${settingPairText('maxJobsBytes')}; ${e.used} in use): wait for finished jobs to expire (${flagOf('jobResultTtlS')}) or cancel some (DELETE /v1/jobs/{id}), then submit again, or send fewer documents.`,
      );
    }
    throw e;
  }
}

/** A document naming an uploaded file, its text still to read. */
type FileDoc = { id: string; file: string; metadata?: Record<string, unknown> };

/**
 * A document naming an uploaded file: its extracted text and the structure its chef found read now
 * (the job holds them under its quota), its file name as metadata.name.
 */
async function fileDocument(d: FileDoc, index: number, deps: IntakeDeps, issues: Issue[]): Promise<JobDocument | undefined> {
  const at = ['body', 'documents', index, 'file'];
  const [record, text] = deps.files ? [await deps.files.get(d.file), await deps.files.text(d.file)] : [undefined, undefined];
  if (!record || text === undefined) {
    issues.push({
      loc: at,
      msg: `No uploaded file named ${JSON.stringify(d.file).slice(0, 80)}: upload it first with POST /v1/files and send the name it answers (files expire; GET /v1/files/{name} shows when).`,
      type: 'file_not_found',
    });
    return undefined;
  }
  const meta = storedMeta(record.filename ?? undefined, d.metadata);
  const structure = await deps.files!.structureJson(d.file);
  return { id: d.id, text, ...(meta ? { meta } : {}), ...(structure ? { chef: record.format, structure: Buffer.from(structure).toString('utf8') } : {}) };
}

/** The ids of a job's documents as they arrive (by a digest: 100,000 ids of 1 KB are not held): the first id given twice. */
class RepeatedIds {
  private readonly seen = new Map<string, number>();
  repeated?: { index: number; first: number; id: string };
  add(id: string, index: number): void {
    if (this.repeated) return;
    const key = createHash('sha256').update(id).digest('base64').slice(0, 22);
    const first = this.seen.get(key);
    if (first === undefined) this.seen.set(key, index);
    else this.repeated = { index, first, id };
  }
}

/** A document checked as the schema says, and storable as UTF-8 text; its problems go to `issues`. */
function checked(value: unknown, loc: (string | number)[], index: number, issues: Issue[]): JobDocument | FileDoc | undefined {
  let d: DocIn;
  try {
    d = checkDocument(value, loc);
    if (d.metadata !== undefined) checkUserMetadata(d.metadata, [...loc, 'metadata']);
  } catch (e) {
    gatherIssues(issues, e);
    return undefined;
  }
  if (d.text === undefined && d.file === undefined) {
    issues.push({ loc: [...loc, 'text'], msg: "Field required: add 'text', or 'file' (the name POST /v1/files answered).", type: 'missing' });
    return undefined;
  }
  if (d.text !== undefined && d.file !== undefined) {
    issues.push({
      loc,
      msg: 'A document has either text or file (an uploaded file\'s name), not both: {"id": "…", "text": "…"} or {"id": "…", "file": "file_…"}.',
      type: 'value_error',
    });
    return undefined;
  }
  if (d.file !== undefined) return { id: d.id ?? d.file, file: d.file, ...(d.metadata ? { metadata: d.metadata } : {}) };
  const text = d.text!;
  // Documents are stored as UTF-8 text until they run: a lone UTF-16 surrogate would come back
  // altered (and the offsets with it), and PostgreSQL text cannot hold U+0000. Refused up front.
  const at = ['body', 'documents', index];
  const before = issues.length;
  if (!text.isWellFormed())
    issues.push({
      loc: [...at, 'text'],
      msg: 'The text holds a lone UTF-16 surrogate, which a job cannot store as is: send well-formed Unicode.',
      type: 'string_unicode',
    });
  else if (text.includes('\u0000'))
    issues.push({
      loc: [...at, 'text'],
      msg: 'The text holds a NUL character (U+0000), which a job cannot store: remove it, or chunk this text with POST /v1/chunk/….',
      type: 'string_unicode',
    });
  if (d.id !== undefined && !d.id.isWellFormed())
    issues.push({
      loc: [...at, 'id'],
      msg: 'The id holds a lone UTF-16 surrogate, which a job cannot store as is: send well-formed Unicode.',
      type: 'string_unicode',
    });
  else if (d.id?.includes('\u0000'))
    issues.push({ loc: [...at, 'id'], msg: 'The id holds a NUL character (U+0000), which a job cannot store: remove it.', type: 'string_unicode' });
  const meta = storedMeta(undefined, d.metadata);
  return issues.length > before ? undefined : { id: d.id ?? String(index), text, ...(meta ? { meta } : {}) };
}

function headerOf(value: unknown, loc: (string | number)[], issues: Issue[]): Header | undefined {
  let header: Header;
  try {
    // As every JSON body is (kernel/request.ts): a number that overflowed to ±Infinity, or nesting past the limit, is a 422 here, not a failure of every document later.
    checkJsonShape(value, loc);
    header = checkHeader(value, loc);
  } catch (e) {
    gatherIssues(issues, e);
    return undefined;
  }
  if (header.pipeline_id?.includes('\u0000')) {
    issues.push({
      loc: ['body', 'pipeline_id'],
      msg: 'pipeline_id holds a NUL character (U+0000), which no pipeline id has: send an id from GET /v1/pipelines.',
      type: 'string_unicode',
    });
  }
  return header;
}

async function stepsOf(header: Header, deps: IntakeDeps): Promise<Step[]> {
  if ((header.pipeline_id === undefined) === (header.steps === undefined)) {
    throw validationError(
      ['body'],
      'Name the steps to run with either pipeline_id (a stored pipeline) or steps (inline), not both and not neither.',
      'value_error',
    );
  }
  if (header.pipeline_id !== undefined) {
    const pipeline = await deps.pipelines.get(header.pipeline_id);
    if (!pipeline) throw new ChunkdError('NOT_FOUND', `Pipeline '${header.pipeline_id}' not found: GET /v1/pipelines lists them, or send inline steps.`);
    checkWriteTarget(pipeline.steps, deps.stores);
    return pipeline.steps;
  }
  return validateSteps(deps.registry, header.steps!, ['body', 'steps'], deps.stores);
}
