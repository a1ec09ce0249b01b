import { Readable } from 'node:stream';
import { ChunkdError } from '../../kernel/errors.js';
import { receiveJob } from '../../service/jobs/intake.js';
import { bodySource, jobTooLarge, NDJSON } from '../jobs/body-source.js';
import { JobAccepted, JobCreate, JobNdjsonLine, JobResultsQuery, JobStatusBody } from '../../wire/jobs.js';
import type { JobStore, JobView } from '../../service/jobs/store.js';
import { queryReader } from '../query.js';
import { type StoresService } from '../../service/stores/service.js';
import type { RouteDef, RouteModule } from '../route.js';
import { BODY_ERRORS, errorResponses } from '../../wire/responses.js';
import type { PipelineStore } from '../../service/storage/store.js';
import { flagOf } from '../../service/settings.js';

/** A job id as randomUUID makes them (lower case). */
const JOB_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const readResultsQuery = queryReader<{ after: number; limit: number }>(JobResultsQuery);

/** Lines read from the store per query while streaming results, and about how many bytes of them (one line alone may be larger). */
const READ_PAGE = 500;
const READ_BYTES = 4 * 1024 * 1024;

/** Jobs: a corpus submitted once, run in batches (on every replica with --database-url), results read back in order. */
export const jobRoutes: RouteModule = (deps) => {
  const store = () => deps.services.jobs;
  const pipelines = () => deps.services.pipelines;
  const missing = (id: string) =>
    new ChunkdError('NOT_FOUND', `Job '${id}' not found (or its results expired after --job-result-ttl-s): submit it again with POST /v1/jobs.`);
  async function found(id: string): Promise<JobView> {
    // Job ids are UUIDs: anything else cannot name a job, and is not sent to the store.
    const job = JOB_ID.test(id) ? await store().get(id) : undefined;
    if (!job) throw missing(id);
    return job;
  }
  const route = (r: Omit<RouteDef, 'tag'>): RouteDef => ({ ...r, tag: 'jobs' });
  const status = { 200: { description: 'The job.', schema: JobStatusBody } };
  return [
    route({
      method: 'post',
      path: '/v1/jobs',
      summary: 'Submit documents to run through a pipeline (pipeline_id) or inline steps, in the background.',
      description:
        `JSON, or NDJSON with \`Content-Type: ${NDJSON}\`: the first line \`{"pipeline_id": …}\` or \`{"steps": […]}\` (and \`offset_unit\`), then one \`{"id", "text"}\` per line. ` +
        `At most ${flagOf('maxJobBytes')} of body and ${flagOf('maxJobDocuments')} documents, streamed into the job store as it arrives; the documents and results of all jobs together are held to ${flagOf('maxJobsBytes')} (over it: 507). ` +
        `Everything is checked before the job is queued; a document that fails when it runs (too long, or a result over ${flagOf('maxDocumentOutputBytes')}) fails alone.`,
      body: JobCreate,
      bodyName: 'JobCreate',
      streamedBody: { mediaType: NDJSON, schema: JobNdjsonLine },
      responses: {
        202: { description: 'Queued.', schema: JobAccepted },
        ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', ...BODY_ERRORS, 'INSUFFICIENT_STORAGE', 'UNAVAILABLE'),
      },
      async handler(ctx) {
        if (Number(ctx.get('content-length') || 0) > deps.settings.maxJobBytes) throw jobTooLarge(deps.settings);
        const intake = {
          registry: deps.registry,
          settings: deps.settings,
          pipelines: pipelines(),
          store: store(),
          stores: deps.services.stores,
          files: deps.services.files,
        };
        const view = await receiveJob(bodySource(ctx.req, deps.settings), Boolean(ctx.is(NDJSON)), intake);
        ctx.status = 202;
        ctx.set('Location', `/v1/jobs/${view.id}`);
        ctx.body = { id: view.id, status: view.status };
      },
    }),
    route({
      method: 'get',
      path: '/v1/jobs/:id',
      summary: "A job's status, counts, first failures and timestamps.",
      responses: { ...status, ...errorResponses('UNAUTHORIZED', 'NOT_FOUND', 'UNAVAILABLE') },
      async handler(ctx) {
        ctx.body = await found(ctx.params.id!);
      },
    }),
    route({
      method: 'get',
      path: '/v1/jobs/:id/results',
      summary: "A job's results as NDJSON, in input order, from a cursor.",
      description:
        'One line per document, `{"document_id", "index", "chunks"}` or `{"document_id", "index", "error"}`, in index order, starting after `after`. ' +
        'Only the finished prefix is sent: the answer ends before the first document without a result yet (X-Job-Status says whether more will come). ' +
        'To resume or poll, send `after` = the index of the last line received.',
      query: JobResultsQuery,
      responses: {
        200: {
          description: 'NDJSON lines.',
          headers: {
            'X-Job-Status': { description: 'The job status when the answer began.', schema: JobStatusBody.properties.status },
            'X-Job-Total': { description: 'Documents in the job.', schema: JobStatusBody.properties.documents.properties.total },
          },
        },
        ...errorResponses('UNAUTHORIZED', 'NOT_FOUND', 'VALIDATION', 'UNAVAILABLE'),
      },
      async handler(ctx) {
        const { after, limit } = readResultsQuery(ctx);
        const job = await found(ctx.params.id!);
        const first = await store().results(job.id, after, Math.min(limit, READ_PAGE), READ_BYTES);
        ctx.set('X-Job-Status', job.status);
        ctx.set('X-Job-Total', String(job.documents.total));
        ctx.type = NDJSON;
        const id = job.id;
        async function* lines() {
          let page = first;
          let sent = 0;
          for (;;) {
            for (const r of page) yield `${r.line}\n`;
            sent += page.length;
            // A page cut short by its byte budget is followed by the next; an empty one (a gap, or the end) ends the answer.
            if (page.length === 0 || sent >= limit) return;
            page = await store().results(id, page.at(-1)!.index, Math.min(READ_PAGE, limit - sent), READ_BYTES);
          }
        }
        ctx.body = Readable.from(lines(), { objectMode: false });
      },
    }),
    route({
      method: 'delete',
      path: '/v1/jobs/:id',
      summary: 'Cancel a job: documents not started are dropped; results so far stay until the job expires.',
      responses: { ...status, ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'UNAVAILABLE') },
      async handler(ctx) {
        const id = ctx.params.id!;
        const job = JOB_ID.test(id) ? await store().cancel(id) : undefined;
        if (!job) throw missing(id);
        ctx.body = job;
      },
    }),
  ];
};
