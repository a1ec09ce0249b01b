import type { Context } from 'koa';
import { ChunkdError, gatherIssues, isChunkdError, type Issue } from '../../kernel/errors.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import { evaluate, type Candidate, type EvalServices } from '../../service/evaluation/evaluate.js';
import { evalServices, stepsCandidate, type RuntimeDeps } from '../../service/evaluation/runtime.js';
import { checkStoreRetriever, storeModeOf, storeOf, type EvalStores } from '../../service/evaluation/store-retriever.js';
import { checkBudget, checkRetrieval, checkSpec, type EvalSpec } from '../../service/evaluation/spec.js';
import type { FileStore } from '../../service/files/store.js';
import { setIgnoredKeys } from '../ignored-keys.js';
import { checkTexts } from '../../service/limits.js';
import { validateSteps, type Step } from '../../service/pipelines/steps.js';
import type { RouteModule } from '../route.js';
import { BODY_ERRORS, errorResponses } from '../../wire/responses.js';
import type { PipelineStore } from '../../service/storage/store.js';
import { NDJSON, wantsNdjson } from '../stream/ndjson.js';
import { refuseConnectionFields } from '../../service/stores/refuse.js';
import { EvaluateLine, EvaluateRequest, EvaluateResponse } from '../../wire/evaluation.js';
import { evaluateBodyPooled, readEvaluateBody, type EvaluateBody } from '../../service/evaluation/body.js';
import { runsJobs } from '../../kernel/engine/index.js';
import { takeRawBody } from '../raw-request.js';
import { requestSignal } from '../middleware/deadline.js';
import { flagOf, settingText } from '../../service/settings.js';

/** POST /v1/evaluate: the evaluation of service/evaluation/, read from a JSON body; progress as NDJSON on request. */
export const evaluateRoutes: RouteModule = (deps) => {
  const stores = () => deps.services.stores;
  const runtime = (): RuntimeDeps => ({ registry: deps.registry, executor: deps.executor, settings: deps.settings, stores: stores() });

  /** Each document's text: its own, or an uploaded file's. */
  async function readDocuments(docs: EvaluateBody['documents']): Promise<{ id: string; text: string }[]> {
    const issues: Issue[] = [];
    docs.forEach((d, i) => {
      if ((d.text === undefined) === (d.file === undefined)) {
        issues.push({
          loc: ['body', 'documents', i],
          msg: `Document '${d.id}' needs either text or file (an uploaded file's name), not ${d.text === undefined ? 'neither' : 'both'}.`,
          type: 'value_error',
        });
      }
    });
    if (issues.length) throw new ChunkdError('VALIDATION', issues);
    const files = deps.services.files;
    return Promise.all(
      docs.map(async (d) => {
        if (d.text !== undefined) return { id: d.id, text: d.text };
        const text = await files?.text(d.file!);
        if (text === undefined) {
          throw new ChunkdError(
            'NOT_FOUND',
            `Document '${d.id}': no file named '${d.file}'. Upload it first with POST /v1/files and send the name it answers (files expire; GET /v1/files/{name} shows when).`,
          );
        }
        return { id: d.id, text };
      }),
    );
  }

  /** Inline steps are checked as a pipeline's; an id must be a stored pipeline's. Every problem at once. */
  async function readCandidates(raw: EvaluateBody['candidates'], unit: OffsetUnit): Promise<Candidate[]> {
    const issues: Issue[] = [];
    const out: Candidate[] = [];
    const store = deps.services.pipelines;
    for (const [i, c] of raw.entries()) {
      const loc = ['body', 'candidates', i];
      try {
        if (typeof c === 'string') {
          const pipeline = await store?.get(c);
          if (!pipeline) {
            issues.push({ loc, msg: `Candidate ${i}: no stored pipeline has the id '${c}' (GET /v1/pipelines lists them).`, type: 'value_error' });
            continue;
          }
          out.push(await stepsCandidate(c, pipeline.steps, unit, runtime(), pipeline.name));
        } else {
          out.push(await stepsCandidate(c, await validateSteps(deps.registry, c, loc), unit, runtime()));
        }
      } catch (e) {
        gatherIssues(issues, e);
      }
    }
    if (issues.length) throw new ChunkdError('VALIDATION', issues);
    return out;
  }

  return [
    {
      method: 'post',
      path: '/v1/evaluate',
      tag: 'evaluation',
      summary: 'Compare chunking candidates by how well their chunks retrieve the evidence of questions (recall, precision, IoU, precision Ω).',
      description:
        'Every candidate chunks every document into one index; each question retrieves its k best chunks (BM25, embeddings or hybrid), scored against its reference spans with the definitions of Chroma’s chunking evaluation. ' +
        'With `"retriever": "store:NAME"` the chunks go through the real index of that store connection (a scratch collection, deleted afterwards), and exact-cosine rows come beside the store’s. ' +
        `Bounded, before any chunking: documents × candidates × questions at most ${settingText('maxEvalWork')}; chunks retrieved (questions × candidates × Σk) at most ${settingText('maxEvalRetrieved')}; with \`detail\`, the listed chunks within ${flagOf('maxOutputBytes')}; else 413. Each candidate chunks and is scored in one pool task. With \`Accept: application/x-ndjson\`: progress lines, then the result.`,
      body: EvaluateRequest,
      bodyName: 'EvaluateRequest',
      responses: {
        200: { description: 'One result per candidate and k.', schema: EvaluateResponse, ndjson: EvaluateLine },
        ...errorResponses(
          'BAD_REQUEST',
          'UNAUTHORIZED',
          'FORBIDDEN',
          'NOT_FOUND',
          ...BODY_ERRORS,
          'MISSING_EXTRA',
          'NOT_CONFIGURED',
          'UPSTREAM',
          'TIMEOUT',
          'UNAVAILABLE',
        ),
      },
      // A large body is parsed and checked in a worker (service/evaluation/body.ts): its documents are never decoded or parsed on the event loop.
      rawBody: true,
      async handler(ctx) {
        // The body's unknown top-level keys: named in a header, and refused below if one says where to connect.
        let ignored: string[] = [];
        const onIgnored = (keys: string[]) => {
          ignored = keys;
          setIgnoredKeys(ctx, keys);
        };
        const body =
          ctx.state.rawBody && runsJobs(deps.executor)
            ? await evaluateBodyPooled({ ...takeRawBody(ctx), onIgnored }, deps.executor)
            : readEvaluateBody(ctx.request.body, onIgnored);
        const k = Array.isArray(body.k) ? body.k : [body.k];
        checkBudget(body.documents.length, body.candidates.length, body.questions.length, deps.settings.maxEvalWork);
        const store = storeOf(body.retriever);
        if (store !== undefined) {
          // Checked before the documents are read: a body naming where to connect is refused by name.
          // The checked body keeps the questions' own extra keys; its unknown top-level keys were set aside (ignored).
          refuseConnectionFields({ ...body, ...Object.fromEntries(ignored.map((key) => [key, null])) }, EvaluateRequest, deps.registry);
          checkStoreRetriever(stores(), store, k, ['body'], storeModeOf(body.retriever));
        }
        const documents = await readDocuments(body.documents);
        checkTexts(
          documents.map((d) => d.text),
          deps.settings,
        );
        const spec: EvalSpec = {
          documents,
          questions: body.questions,
          retriever: body.retriever,
          embeddingModel: body.embedding_model,
          k,
          locate: body.locate,
          unit: body.offset_unit,
          detail: body.detail,
        };
        checkSpec(spec);
        checkRetrieval(spec, body.candidates.length, deps.settings);
        const candidates = await readCandidates(body.candidates, body.offset_unit);
        const services = await evalServices(runtime(), body.retriever === 'bm25' ? undefined : body.embedding_model, store, storeModeOf(body.retriever));
        const signal = requestSignal(ctx);
        if (wantsNdjson(ctx)) return stream(ctx, signal, (progress, until) => evaluate(spec, candidates, { ...services, progress, signal: until }));
        ctx.body = await evaluate(spec, candidates, { ...services, signal });
      },
    },
  ];
};

/**
 * The NDJSON answer: a line per progress event, then the result, or an error line when the run
 * fails once streaming has begun (everything wrong with the request was answered as JSON before).
 */
async function stream(
  ctx: Context,
  signal: AbortSignal | undefined,
  run: (progress: NonNullable<EvalServices['progress']>, signal: AbortSignal) => Promise<unknown>,
): Promise<void> {
  if (signal?.aborted) return;
  const res = ctx.res;
  // A client that goes away stops the work, as the deadline does.
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  const until = signal ? AbortSignal.any([signal, gone.signal]) : gone.signal;
  ctx.status = 200;
  ctx.respond = false;
  res.statusCode = 200;
  res.setHeader('Content-Type', `${NDJSON}; charset=utf-8`);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  const line = (value: unknown) => {
    if (!res.destroyed) res.write(`${JSON.stringify(value)}\n`);
  };
  try {
    line(await run((p) => line({ progress: p }), until));
  } catch (e) {
    const error = isChunkdError(e)
      ? e
      : new ChunkdError(
          signal?.aborted ? 'TIMEOUT' : 'INTERNAL',
          signal?.aborted
            ? `The evaluation did not finish before the request deadline: send less, or raise ${settingText('requestTimeoutMs')}.`
            : 'The evaluation failed; see the server log.',
        );
    if (!isChunkdError(e)) ctx.app.emit('error', e, ctx);
    line({ error: error.toJSON() });
  } finally {
    res.end();
  }
}
