import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import { ChunkdError, isChunkdError, validationError, type Issue } from '../../kernel/errors.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import type { Registry } from '../../kernel/registry.js';
import { compileValidator, MAX_ISSUES } from '../../kernel/validation.js';
import { validateSteps, type Step } from '../pipelines/steps.js';
import { readBody } from '../read-body.js';
import type { Settings } from '../settings.js';
import type { PipelineStore } from '../storage/store.js';
import { parseStrictJson } from '../strict-json.js';
import { JobCreate, JobDocumentInput, JobHeader } from './schemas.js';
import type { JobDocument, NewJob } from './store.js';

type Header = { pipeline_id?: string; steps?: Step[]; offset_unit: OffsetUnit };
type DocIn = { id?: string; text: string };
const checkCreate = compileValidator<Header & { documents: DocIn[] }>(JobCreate);
const checkHeader = compileValidator<Header>(JobHeader);
const checkDocument = compileValidator<DocIn>(JobDocumentInput);

export const NDJSON = 'application/x-ndjson';

/**
 * A job body, JSON (`{pipeline_id | steps, offset_unit?, documents: [{id?, text}]}`) or NDJSON
 * (Content-Type application/x-ndjson: the same header object on the first line, then one
 * document object per line), read up to --max-job-bytes and checked whole before anything is
 * stored: every problem is a 422 at its loc (an NDJSON line's loc is ['body', <line number>]).
 */
export async function readJob(ctx: Context, deps: { registry: Registry; settings: Settings; pipelines: () => PipelineStore }): Promise<NewJob> {
  const { settings } = deps;
  let bytes: Buffer;
  try {
    bytes = await readBody(ctx.req, settings.maxJobBytes);
  } catch (e) {
    if ((e as { type?: string }).type !== 'entity.too.large') throw e;
    throw new ChunkdError('TOO_LARGE', `The job body is larger than ${settings.maxJobBytes} bytes: split the documents over several jobs, or raise --max-job-bytes (CHUNKD_MAX_JOB_BYTES).`);
  }
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const { header, documents } = ctx.is(NDJSON) ? parseNdjson(text) : parseJson(text);
  if (documents.length > settings.maxJobDocuments) {
    throw new ChunkdError('TOO_LARGE', `The job has ${documents.length} documents; the limit is ${settings.maxJobDocuments}. Split them over several jobs, or raise --max-job-documents (CHUNKD_MAX_JOB_DOCUMENTS).`);
  }
  checkStorable(header, documents);
  if ((header.pipeline_id === undefined) === (header.steps === undefined)) {
    throw validationError(['body'], 'Name the steps to run with either pipeline_id (a stored pipeline) or steps (inline), not both and not neither.', 'value_error');
  }
  let steps: Step[];
  if (header.pipeline_id !== undefined) {
    const pipeline = await deps.pipelines().get(header.pipeline_id);
    if (!pipeline) throw new ChunkdError('NOT_FOUND', `Pipeline '${header.pipeline_id}' not found: GET /v1/pipelines lists them, or send inline steps.`);
    steps = pipeline.steps;
  } else {
    steps = await validateSteps(deps.registry, header.steps!, ['body', 'steps']);
  }
  return {
    id: randomUUID(),
    pipeline_id: header.pipeline_id ?? null,
    steps,
    offset_unit: header.offset_unit,
    documents: documents.map((d, i): JobDocument => ({ id: d.id ?? String(i), text: d.text })),
    created_at: new Date().toISOString(),
  };
}

function parseJson(text: string) {
  let raw: unknown;
  try {
    raw = parseStrictJson(text);
  } catch (e) {
    if (isChunkdError(e)) throw e;
    throw validationError(['body'], `The body is not valid JSON (${(e as Error).message}): send a JSON object, or NDJSON with Content-Type: ${NDJSON}.`, 'json_invalid');
  }
  const { documents, ...header } = checkCreate(raw, ['body']);
  return { header, documents };
}

function parseNdjson(text: string) {
  const lines = text.split('\n');
  const issues: Issue[] = [];
  const documents: DocIn[] = [];
  let header: Header | undefined;
  for (const [i, line] of lines.entries()) {
    if (issues.length >= MAX_ISSUES) break;
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = parseStrictJson(line);
    } catch (e) {
      if (isChunkdError(e) && Array.isArray(e.detail)) issues.push(...e.detail.map((x) => ({ ...x, loc: ['body', i + 1, ...x.loc.slice(1)] })));
      else issues.push({ loc: ['body', i + 1], msg: `Line ${i + 1} is not one JSON object (${(e as Error).message}): send one object per line.`, type: 'json_invalid' });
      continue;
    }
    try {
      if (header === undefined) header = checkHeader(value, ['body', i + 1]);
      else documents.push(checkDocument(value, ['body', i + 1]));
    } catch (e) {
      if (!isChunkdError(e) || !Array.isArray(e.detail)) throw e;
      issues.push(...e.detail);
      header ??= {} as Header; // a bad header line is still the header: the next lines are documents
    }
  }
  if (!header && !issues.length) issues.push({ loc: ['body'], msg: `The NDJSON body is empty: send a header line ({"pipeline_id": …} or {"steps": […]}), then one {"id", "text"} per line.`, type: 'missing' });
  if (issues.length) throw new ChunkdError('VALIDATION', issues.slice(0, MAX_ISSUES));
  return { header: header!, documents };
}

/**
 * Documents are stored as UTF-8 text until they run: a lone UTF-16 surrogate would come back
 * altered (and the offsets with it), and PostgreSQL text cannot hold U+0000. Refused up front.
 */
function checkStorable(header: Header, documents: DocIn[]): void {
  const issues: Issue[] = [];
  if (header.pipeline_id?.includes('\u0000')) issues.push({ loc: ['body', 'pipeline_id'], msg: 'pipeline_id holds a NUL character (U+0000), which no pipeline id has: send an id from GET /v1/pipelines.', type: 'string_unicode' });
  for (const [i, d] of documents.entries()) {
    if (issues.length >= MAX_ISSUES) break;
    if (!d.text.isWellFormed()) issues.push({ loc: ['body', 'documents', i, 'text'], msg: 'The text holds a lone UTF-16 surrogate, which a job cannot store as is: send well-formed Unicode.', type: 'string_unicode' });
    else if (d.text.includes('\u0000')) issues.push({ loc: ['body', 'documents', i, 'text'], msg: 'The text holds a NUL character (U+0000), which a job cannot store: remove it, or chunk this text with POST /v1/chunk/….', type: 'string_unicode' });
    if (d.id !== undefined && !d.id.isWellFormed()) issues.push({ loc: ['body', 'documents', i, 'id'], msg: 'The id holds a lone UTF-16 surrogate, which a job cannot store as is: send well-formed Unicode.', type: 'string_unicode' });
    else if (d.id?.includes('\u0000')) issues.push({ loc: ['body', 'documents', i, 'id'], msg: 'The id holds a NUL character (U+0000), which a job cannot store: remove it.', type: 'string_unicode' });
  }
  if (issues.length) throw new ChunkdError('VALIDATION', issues);
}
