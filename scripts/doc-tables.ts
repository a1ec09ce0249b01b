import { basename, dirname } from 'node:path';
import { ERRORS } from '../kernel/errors.js';
import type { AnyManifest } from '../kernel/plugin.js';
import type { Registry } from '../kernel/registry.js';
import { chefInfo } from '../kernel/chef/select.js';
import type { RouteDef } from '../server/route.js';
import { defaultText, flagOf, SETTINGS } from '../service/settings.js';

/**
 * Markdown tables derived from the schemas and the settings list. READMEs hold them between
 * `<!-- name:start -->` and `<!-- name:end -->` markers; `npm run docs` rewrites them and a test
 * fails when one is out of step.
 */
export function configTable(manifest: AnyManifest): string {
  const rows = Object.entries(manifest.config.properties).map(([key, field]) => {
    const f = field as Record<string, unknown> & { default?: unknown; description?: string };
    // A handshake's connection field with no default (a URL) must be given; a secret one may be "env:VAR".
    const dflt = f.default === undefined ? 'required' : `\`${JSON.stringify(f.default)}\``;
    const secret = f.secret === true ? ' Secret: never listed or logged; give it as `"env:VAR"`.' : '';
    return `| \`${key}\` | ${typeName(f)} | ${dflt} | ${escape((f.description ?? '') + secret)} |`;
  });
  return ['| field | type | default | description |', '|---|---|---|---|', ...rows].join('\n');
}

export function settingsTable(): string {
  const rows = Object.entries(SETTINGS).map(([name, spec]) => {
    const s = spec as { env: string; default: string | number | boolean | readonly string[]; help: string; choices?: readonly string[] };
    const choices = s.choices ? ` One of: ${s.choices.join(', ')}.` : '';
    const dflt = defaultText(s);
    return `| \`--${name}\` | \`${s.env}\` | ${dflt === 'none' ? 'none' : `\`${dflt}\``} | ${escape(s.help + choices)} |`;
  });
  return ['| flag | env | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

export function errorsTable(): string {
  const rows = Object.entries(ERRORS).map(([code, e]) => `| ${e.status} | \`${code}\` | ${escape(e.meaning)} |`);
  return ['| status | code | when |', '|---|---|---|', ...rows].join('\n');
}

export function routesTable(routes: readonly RouteDef[]): string {
  const rows = routes.filter((r) => !r.hidden).map((r) => `| \`${r.method.toUpperCase()} ${r.path}\` | ${escape(r.summary)} |`);
  return ['| route | what it does |', '|---|---|', ...rows].join('\n');
}

export function pluginsTable(registry: Registry): string {
  const rows = registry.list().map((p) => {
    const extras = p.manifest.extras.map((e) => `${e.packages.join(', ')}${e.required === false ? ' (optional)' : ''}`).join('; ') || '—';
    return `| [\`${p.name}\`](${pluginFolder(p)}/README.md) | ${p.kind} | ${p.route ? `\`POST ${p.route}\`` : `a connection (\`${flagOf('stores')}\`): \`"handshake": "${p.name}"\``} | ${escape(p.manifest.summary)} | ${extras} |`;
  });
  return ['| plugin | kind | route | what it does | extras |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** The chefs, the files each reads, and the optional package each needs: derived from the chef manifests. */
export function formatsTable(registry: Registry): string {
  const rows = registry.list('chef').map((chef) => {
    const f = chefInfo(chef);
    const code = (xs: string[]) => xs.map((x) => `\`${x}\``).join(', ') || '—';
    const lib = f.extra ? code(f.extra.packages) : 'none';
    const install = f.extra ? `\`${f.extra.install}\`` : '—';
    const sniffs = chef.manifest.sniff ? ' (and any other file that is UTF-8 text)' : '';
    return `| \`${f.name}\` | ${code(f.extensions)}${sniffs} | ${code(f.media_types)} | ${lib} | ${install} |`;
  });
  return ['| chef | extensions | media types | read with | install |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** A compact type for a table cell, with its maximum: `integer ≤ 64`, `string \| string[]`, `"prev" \| "next"`. */
export function typeName(schema: Record<string, unknown>): string {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Record<string, unknown>[]).map(typeName).join(' \\| ');
  if ('const' in schema) return `\`${JSON.stringify(schema.const)}\``;
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' \\| ');
  if (schema.type === 'array') return `${typeName((schema.items as Record<string, unknown>) ?? {})}[]${upperBound(schema)}`;
  return typeof schema.type === 'string' ? `${schema.type}${upperBound(schema)}` : 'any';
}

/** A schema's maximum, as the docs state the cost limits: ` ≤ 64`, ` (≤ 64 chars)`, ` (≤ 64 items)`. */
function upperBound(schema: Record<string, unknown>): string {
  if (typeof schema.maximum === 'number') return ` ≤ ${schema.maximum}`;
  if (typeof schema.exclusiveMaximum === 'number') return ` < ${schema.exclusiveMaximum}`;
  if (typeof schema.maxLength === 'number') return ` (≤ ${schema.maxLength} chars)`;
  if (typeof schema.maxItems === 'number') return ` (≤ ${schema.maxItems} items)`;
  return '';
}

/** A built-in plugin's folder, relative to the repository root (plugins/<folder>). */
const pluginFolder = (p: { source: string }) => `plugins/${basename(dirname(p.source))}`;

const escape = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** Replace the text between a pair of markers; returns undefined when the markers are absent. */
export function replaceBetween(doc: string, name: string, body: string): string | undefined {
  const re = new RegExp(`(<!-- ${name}:start -->\\n)[\\s\\S]*?(<!-- ${name}:end -->)`);
  return re.test(doc) ? doc.replace(re, (_, a: string, b: string) => `${a}${body}\n${b}`) : undefined;
}
