import { ProcessedDocument } from '../../kernel/chef/document.js';
import { storedStructure, type StoredDocument } from '../../service/pipelines/execute.js';
import type { RoutedPlugin } from '../../kernel/registry.js';
import { parseRequest } from '../../kernel/run.js';
import type { Doc, Recipe } from '../../kernel/runner.js';
import { setIgnoredKeys } from '../ignored-keys.js';
import { checkTexts, runnerOf } from '../../service/limits.js';
import { exampleAnswers } from '../openapi-examples.js';
import { sendJsonBytes } from '../stream/json-bytes.js';
import type { AppDeps, RouteDef, RouteModule } from '../route.js';
import { BODY_ERRORS, errorResponses } from '../schemas.js';

/** One POST route per chef: /v1/process/<name> answers the processed document (text and structure). */
export const processRoutes: RouteModule = (deps) => deps.registry.list('chef').map((p) => processRoute(p, deps));

function processRoute(chef: RoutedPlugin, { executor, settings, registry }: AppDeps): RouteDef {
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
      200: { description: 'The processed document: its text, and spans of it (offsets in offset_unit).', schema: ProcessedDocument, example: () => exampleAnswers(registry).get(`chef:${chef.name}`) },
      ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', ...BODY_ERRORS, 'MISSING_EXTRA', 'TIMEOUT'),
    },
    documentInput: true,
    async handler(ctx) {
      const req = parseRequest(chef, ctx.request.body);
      setIgnoredKeys(ctx, req.ignored);
      const text = req.input as string;
      checkTexts(text, settings);
      // A file this chef read at upload: its stored document (a PDF's pages too), not its text read again (kernel/runner.ts).
      const stored = ctx.state.document as StoredDocument | undefined;
      const doc: Doc = stored?.format === chef.name ? { text, structure: storedStructure(stored), chef: chef.name } : text;
      // The chef is the recipe's one step: run where the runner places it, its document serialised there under --max-output-bytes.
      const recipe: Recipe = { steps: [{ plugin: chef, config: req.config }], unit: req.unit, returnType: 'chunks' };
      sendJsonBytes(ctx, await runnerOf(executor, settings).answer(recipe, [doc], { list: false, signal: ctx.state.signal as AbortSignal }));
    },
  };
}


const pascal = (name: string) => name.replace(/(^|[-_])([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
