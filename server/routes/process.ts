import { ProcessedDocument } from '../../kernel/chef/document.js';
import { storedStructure, type StoredDocument } from '../../service/pipelines/execute.js';
import type { RoutedPlugin } from '../../kernel/registry.js';
import { parseRequest } from '../../kernel/request.js';
import type { Doc, Recipe } from '../../kernel/engine/index.js';
import { setIgnoredKeys } from '../ignored-keys.js';
import { checkTexts, runnerOf } from '../../service/limits.js';
import { exampleAnswers } from '../openapi-examples.js';
import { sendJsonBytes } from '../stream/json-bytes.js';
import { runsJobs } from '../../kernel/engine/index.js';
import { resolveDocument } from '../../service/files/document-input.js';
import type { FileStore } from '../../service/files/store.js';
import { pluginPooled } from '../../service/large-bodies/answer.js';
import { takeRawBody } from '../raw-request.js';
import type { AppDeps, RouteDef, RouteModule } from '../route.js';
import { BODY_ERRORS, errorResponses } from '../../wire/responses.js';
import { requestSignal } from '../middleware/deadline.js';

/** One POST route per chef: /v1/process/<name> answers the processed document (text and structure). */
export const processRoutes: RouteModule = (deps) => deps.registry.list('chef').map((p) => processRoute(p, deps));

function processRoute(chef: RoutedPlugin, deps: AppDeps): RouteDef {
  const { executor, settings, registry } = deps;
  const extras = chef.manifest.extras.map((e) => `\`${e.name}\` (${e.packages.join(', ')}): ${e.reason}`);
  const reads = [...(chef.manifest.extensions ?? []), ...(chef.manifest.mediaTypes ?? [])].join(', ');
  return {
    method: 'post',
    path: chef.route,
    summary: chef.manifest.summary,
    tag: 'chefs',
    description: [
      `Reads ${reads || 'what its sniffing accepts'}. Send \`text\`, or \`file\` naming an upload (its stored text is processed; a file this chef read at upload answers the stored document, a PDF's pages included). Upload a file with POST /v1/files to have it read by the chef for its type (form field \`chef\` names one).`,
      chef.manifest.bytesOnly ? 'This chef reads files only: a `text` is a 422.' : '',
      extras.length ? `Needs the optional extra ${extras.join('; ')}` : '',
    ]
      .filter(Boolean)
      .join(' '),
    body: chef.body,
    bodyName: `${pascal(chef.name)}ProcessRequest`,
    examples: chef.manifest.examples,
    responses: {
      200: {
        description: 'The processed document: its text, and spans of it (offsets in offset_unit).',
        schema: ProcessedDocument,
        example: () => exampleAnswers(registry).get(`chef:${chef.name}`),
      },
      ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', ...BODY_ERRORS, 'MISSING_EXTRA', 'TIMEOUT'),
    },
    documentInput: true,
    // A large body is parsed in a worker (service/large-bodies/job.ts): its text comes back as UTF-16 bytes for the runner, never parsed here.
    rawBody: true,
    async handler(ctx) {
      const signal = requestSignal(ctx);
      let body = ctx.request.body as unknown;
      let stored = ctx.state.document as StoredDocument | undefined;
      if (ctx.state.rawBody && runsJobs(executor)) {
        const pooled = await pluginPooled(takeRawBody(ctx), chef, executor, settings, 'documents', true);
        if ('bytes' in pooled) return sendJsonBytes(ctx, [pooled.bytes]);
        if ('prepared' in pooled) {
          const { config, unit, docs } = pooled.prepared;
          const recipe: Recipe = { steps: [{ plugin: chef, config: config! }], unit, returnType: 'chunks' };
          return sendJsonBytes(ctx, await runnerOf(executor, settings).answer(recipe, docs, { list: false, signal }));
        }
        body = pooled.body;
        stored = await resolveDocument(body, deps.services.files); // a body naming an uploaded file
      }
      const req = parseRequest(chef, body);
      setIgnoredKeys(ctx, req.ignored);
      const text = req.input as string;
      checkTexts(text, settings);
      // A file this chef read at upload: its stored document (a PDF's pages too), not its text read again (kernel/engine/runner.ts).
      const doc: Doc = stored?.format === chef.name ? { text, structure: storedStructure(stored), chef: chef.name } : text;
      // The chef is the recipe's one step: run where the runner places it, its document serialised there under --max-output-bytes.
      const recipe: Recipe = { steps: [{ plugin: chef, config: req.config }], unit: req.unit, returnType: 'chunks' };
      sendJsonBytes(ctx, await runnerOf(executor, settings).answer(recipe, [doc], { list: false, signal }));
    },
  };
}

const pascal = (name: string) => name.replace(/(^|[-_])([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
