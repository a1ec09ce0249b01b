import type { RouteDef } from './route.js';

/** OpenAPI 3.1 document derived from the route declarations (schemas are TypeBox values: JSON Schema). */
export function buildOpenApi(routes: readonly RouteDef[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes.filter((x) => !x.hidden)) {
    const path = r.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const params = [...r.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const op: Record<string, unknown> = {
      summary: r.summary,
      tags: [r.tag],
      operationId: `${r.method}_${path.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`,
      responses: Object.fromEntries(
        Object.entries(r.responses).map(([status, res]) => [
          status,
          res.schema ? { description: res.description, content: { 'application/json': { schema: res.schema } } } : { description: res.description },
        ]),
      ),
    };
    if (r.description) op.description = r.description;
    if (params.length) op.parameters = params;
    if (r.body) {
      const examples = Object.fromEntries((r.examples ?? []).map((value, i) => [`example${i + 1}`, { value }]));
      op.requestBody = { required: true, content: { 'application/json': { schema: r.body, ...(r.examples?.length ? { examples } : {}) } } };
    }
    (paths[path] ??= {})[r.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'chunkd',
      version,
      description: 'Chunking service: split text and code into chunks, refine them, store pipelines. Wire-compatible with Chonkie’s API server.',
    },
    paths,
  };
}
