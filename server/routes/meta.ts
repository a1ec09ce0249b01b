import Type from 'typebox';
import { isInstalled } from '../../kernel/extras.js';
import { Extra } from '../../kernel/plugin.js';
import type { RouteModule } from '../route.js';

const PluginInfo = Type.Object({
  name: Type.String(),
  kind: Type.String(),
  route: Type.String(),
  summary: Type.String(),
  config: Type.Object({}, { additionalProperties: true, description: 'JSON Schema of the config fields, with defaults.' }),
  extras: Type.Array(Type.Intersect([Extra, Type.Object({ installed: Type.Boolean() })])),
  available: Type.Boolean(),
  missing: Type.Array(Type.String(), { description: 'Packages to install for the plugin to work.' }),
});

export const metaRoutes: RouteModule = ({ registry }) => [
  {
    method: 'get',
    path: '/health',
    summary: 'Liveness: answers while the server runs.',
    tag: 'meta',
    public: true,
    responses: { 200: { description: 'Healthy.', schema: Type.Object({ status: Type.Literal('ok') }) } },
    handler(ctx) {
      ctx.body = { status: 'ok' };
    },
  },
  {
    method: 'get',
    path: '/v1/plugins',
    summary: 'Every plugin: kind, summary, config schema, extras, and whether it is available.',
    tag: 'meta',
    responses: { 200: { description: 'The plugins.', schema: Type.Array(PluginInfo) } },
    handler(ctx) {
      ctx.body = registry.list().map((p) => {
        const missing = p.missing;
        return { name: p.name, kind: p.kind, route: p.route, summary: p.manifest.summary, config: p.manifest.config, extras: p.manifest.extras.map((e) => ({ ...e, installed: e.packages.every(isInstalled) })), available: missing.length === 0, missing };
      });
    },
  },
];
