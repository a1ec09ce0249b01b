import type { TSchema } from '#typebox';
import type { ResponseDef, RouteDef } from './route.js';

/**
 * OpenAPI 3.1 document derived from the route declarations (schemas are TypeBox values, i.e. JSON
 * Schema 2020-12). Schemas listed in `components` are emitted once and referenced by `$ref`
 * wherever the very same schema value appears in a route.
 */
export function buildOpenApi(
  routes: readonly RouteDef[],
  version: string,
  components: Record<string, TSchema> = {},
  examples: ReadonlyMap<ResponseDef, unknown> = new Map(),
): Record<string, unknown> {
  const refs = new Map<unknown, string>(Object.entries(components).map(([name, schema]) => [schema, `#/components/schemas/${name}`]));
  const named: Record<string, TSchema> = { ...components };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes.filter((x) => !x.hidden)) {
    const path = r.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const params: Record<string, unknown>[] = [...r.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    for (const [name, schema] of Object.entries(r.query?.properties ?? {})) {
      const { description, ...rest } = schema as TSchema & { description?: string };
      params.push({ name, in: 'query', required: (r.query!.required ?? []).includes(name), ...(description ? { description } : {}), schema: rest });
    }
    const op: Record<string, unknown> = {
      summary: r.summary,
      tags: [r.tag],
      operationId: `${r.method}_${path.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`,
      responses: Object.fromEntries(
        Object.entries(r.responses).map(([status, res]) => [
          status,
          {
            description: res.description,
            ...(res.headers ? { headers: res.headers } : {}),
            ...(res.schema ? { content: content(res, refs, examples) } : {}),
          },
        ]),
      ),
    };
    if (r.description) op.description = r.description;
    if (params.length) op.parameters = params;
    if (r.body) {
      let schema = referenced(r.body, refs);
      if (r.bodyName) {
        named[r.bodyName] = schema as TSchema;
        schema = { $ref: `#/components/schemas/${r.bodyName}` };
      }
      const examples = Object.fromEntries((r.examples ?? []).map((value, i) => [`example${i + 1}`, { value }]));
      op.requestBody = { required: true, content: { 'application/json': { schema, ...(r.examples?.length ? { examples } : {}) } } };
    }
    if (r.streamedBody) {
      const json = (op.requestBody as { content?: Record<string, unknown> } | undefined)?.content;
      op.requestBody = { required: true, content: { ...json, [r.streamedBody.mediaType]: { schema: referenced(r.streamedBody.schema, refs) } } };
    }
    (paths[path] ??= {})[r.method] = op;
  }
  const schemas = Object.fromEntries(Object.entries(named).map(([name, s]) => [name, name in components ? referenced(s, refs, s) : s]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'chunkd',
      version,
      description: 'Chunking service: split text and code into chunks, refine them, store pipelines. Wire-compatible with Chonkie’s API server.',
    },
    paths,
    components: { schemas },
  };
}

/** A copy of `schema` in which every component schema (other than `self`) is a `$ref`. */
function referenced(schema: unknown, refs: Map<unknown, string>, self?: unknown): unknown {
  if (schema !== self && refs.has(schema)) return { $ref: refs.get(schema) };
  if (Array.isArray(schema)) return schema.map((s) => referenced(s, refs));
  if (schema && typeof schema === 'object') return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, referenced(v, refs)]));
  return schema;
}

/** A response's media types: JSON (with its example when one was made), and NDJSON when the route streams. */
function content(res: ResponseDef, refs: Map<unknown, string>, examples: ReadonlyMap<ResponseDef, unknown>): Record<string, unknown> {
  const json: Record<string, unknown> = { schema: referenced(res.schema, refs) };
  if (examples.has(res)) json.example = examples.get(res);
  return { 'application/json': json, ...(res.ndjson ? { 'application/x-ndjson': { schema: referenced(res.ndjson, refs) } } : {}) };
}
