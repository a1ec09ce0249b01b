import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Context } from 'koa';
import { tooLarge } from '../../kernel/caps.js';
import { ChunkdError, gatherIssues, validationError, type Issue } from '../../kernel/errors.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import type { Registry } from '../../kernel/registry.js';
import { compileValidator, MAX_ISSUES } from '../../kernel/validation.js';
import { validateSteps, type Step } from '../../service/pipelines/steps.js';
import { checkJsonShape } from '../../kernel/json-shape.js';
import { flagOf, settingOf, settingPairText, type Settings } from '../../service/settings.js';
import type { PipelineStore } from '../../service/storage/store.js';
import type { StoresService } from '../../service/stores/service.js';
import { JsonJobSplitter, NdjsonJobSplitter, type JobPiece } from './json-split.js';
import { JobHeader, JobDocumentInput } from '../../service/jobs/schemas.js';
import { documentBytes, JobQuotaError, type JobDocument, type JobIntake, type JobStore, type JobView } from '../../service/jobs/store.js';

type Header = { pipeline_id?: string; steps?: Step[]; offset_unit: OffsetUnit };
type DocIn = { id?: string; text: string };
const checkHeader = compileValidator<Header>(JobHeader);
const checkDocument = compileValidator<DocIn>(JobDocumentInput);

export const NDJSON = 'application/x-ndjson';

/** Documents stored per write while a body arrives: whichever of the two comes first. */
const BATCH_DOCUMENTS = 1000;
const BATCH_BYTES = 4 * 1024 * 1024;

interface Deps {
  registry: Registry;
  settings: Settings;
  pipelines: () => PipelineStore;
  store: JobStore;
  /** The store connections a write step names (service/stores/service.ts). */
  stores?: () => StoresService | undefined;
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
export async function receiveJob(ctx: Context, deps: Deps): Promise<JobView> {
  const { settings } = deps;
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > settings.maxJobBytes) throw jobTooLarge(settings);
  const ndjson = Boolean(ctx.is(NDJSON));
  const body = bodyReader(ctx.req, settings);
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
          const doc = checked(p.value, p.loc, p.index, issues);
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
      if (ndjson && !header) issues.push({ loc: ['body'], msg: `The NDJSON body is empty: send a header line ({"pipeline_id": …} or {"steps": […]}), then one {"id", "text"} per line.`, type: 'missing' });
      if (!ndjson && !(splitter as JsonJobSplitter).hasDocuments && !('documents' in fields)) issues.push({ loc: ['body', 'documents'], msg: "Field required: add 'documents'.", type: 'missing' });
      if (!ndjson && 'documents' in fields) issues.push({ loc: ['body', 'documents'], msg: 'documents must be a list of {"id", "text"} objects.', type: 'list_type' });
    }
    const meta = issues.length ? undefined : headerOf(ndjson ? header!.value : fields, ndjson ? header!.loc : ['body'], issues);
    if (issues.length) throw new ChunkdError('VALIDATION', issues.slice(0, MAX_ISSUES));
    const steps = await stepsOf(meta!, deps);
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

/** A document checked as the schema says, and storable as UTF-8 text; its problems go to `issues`. */
function checked(value: unknown, loc: (string | number)[], index: number, issues: Issue[]): JobDocument | undefined {
  let d: DocIn;
  try {
    d = checkDocument(value, loc);
  } catch (e) {
    gatherIssues(issues, e);
    return undefined;
  }
  // Documents are stored as UTF-8 text until they run: a lone UTF-16 surrogate would come back
  // altered (and the offsets with it), and PostgreSQL text cannot hold U+0000. Refused up front.
  const at = ['body', 'documents', index];
  const before = issues.length;
  if (!d.text.isWellFormed()) issues.push({ loc: [...at, 'text'], msg: 'The text holds a lone UTF-16 surrogate, which a job cannot store as is: send well-formed Unicode.', type: 'string_unicode' });
  else if (d.text.includes('\u0000')) issues.push({ loc: [...at, 'text'], msg: 'The text holds a NUL character (U+0000), which a job cannot store: remove it, or chunk this text with POST /v1/chunk/….', type: 'string_unicode' });
  if (d.id !== undefined && !d.id.isWellFormed()) issues.push({ loc: [...at, 'id'], msg: 'The id holds a lone UTF-16 surrogate, which a job cannot store as is: send well-formed Unicode.', type: 'string_unicode' });
  else if (d.id?.includes('\u0000')) issues.push({ loc: [...at, 'id'], msg: 'The id holds a NUL character (U+0000), which a job cannot store: remove it.', type: 'string_unicode' });
  return issues.length > before ? undefined : { id: d.id ?? String(index), text: d.text };
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
    issues.push({ loc: ['body', 'pipeline_id'], msg: 'pipeline_id holds a NUL character (U+0000), which no pipeline id has: send an id from GET /v1/pipelines.', type: 'string_unicode' });
  }
  return header;
}

async function stepsOf(header: Header, deps: Deps): Promise<Step[]> {
  if ((header.pipeline_id === undefined) === (header.steps === undefined)) {
    throw validationError(['body'], 'Name the steps to run with either pipeline_id (a stored pipeline) or steps (inline), not both and not neither.', 'value_error');
  }
  if (header.pipeline_id !== undefined) {
    const pipeline = await deps.pipelines().get(header.pipeline_id);
    if (!pipeline) throw new ChunkdError('NOT_FOUND', `Pipeline '${header.pipeline_id}' not found: GET /v1/pipelines lists them, or send inline steps.`);
    return pipeline.steps;
  }
  return validateSteps(deps.registry, header.steps!, ['body', 'steps'], deps.stores?.());
}

const jobTooLarge = (settings: Settings) =>
  tooLarge('The job body is too large', `${settings.maxJobBytes} bytes`, settingOf('maxJobBytes'), 'Split the documents over several jobs');

/**
 * The body's bytes, pulled one network (or decoded) chunk at a time: at most --max-job-bytes off
 * the wire and, compressed, at most that once decoded. `stop()` leaves the rest unread (the
 * connection is closed after the answer).
 */
function bodyReader(req: IncomingMessage, settings: Settings): { next(): Promise<Buffer | null>; stop(): void } {
  const limit = settings.maxJobBytes;
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  let decoder: Transform | undefined;
  if (encoding === 'gzip' || encoding === 'x-gzip') decoder = createGunzip();
  else if (encoding === 'deflate') decoder = createInflate();
  else if (encoding === 'br') decoder = createBrotliDecompress();
  else if (encoding !== 'identity' && encoding !== '') {
    throw new ChunkdError('UNSUPPORTED_MEDIA_TYPE', `Unsupported Content-Encoding '${encoding}': send the body uncompressed, or compressed with gzip, deflate or br.`);
  }
  let failure: Error | undefined;
  let wire = 0;
  let decoded = 0;
  if (decoder) {
    req.on('data', (c: Buffer) => {
      wire += c.length;
      if (wire > limit && !failure) {
        failure = jobTooLarge(settings);
        req.unpipe(decoder);
        req.pause();
      }
    });
    decoder.on('error', () => (failure ??= new ChunkdError('VALIDATION', [{ loc: ['body'], msg: `The body is not valid ${encoding} data: send it compressed as its Content-Encoding says, or uncompressed without one.`, type: 'json_invalid' }])));
    req.pipe(decoder);
  }
  const source: Readable = decoder ?? req;
  const cutShort = () => new ChunkdError('VALIDATION', [{ loc: ['body'], msg: 'The body was cut short: send the whole body.', type: 'json_invalid' }]);
  return {
    async next() {
      for (;;) {
        if (failure) throw failure;
        const chunk = source.read() as Buffer | null;
        if (chunk !== null) {
          decoded += chunk.length;
          if (decoded > limit) throw (failure = jobTooLarge(settings));
          return chunk;
        }
        if (source.readableEnded) return null;
        if (source.destroyed || (req.destroyed && !req.complete)) throw (failure ??= cutShort());
        await new Promise<void>((resolve) => {
          const done = () => {
            source.off('readable', done).off('end', done).off('error', done).off('close', done);
            req.off('close', done);
            resolve();
          };
          source.on('readable', done).on('end', done).on('error', done).on('close', done);
          req.on('close', done);
        });
      }
    },
    stop() {
      if (decoder) {
        req.unpipe(decoder);
        decoder.destroy();
      }
      req.pause();
    },
  };
}
