import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Documentation examples as data: each request renders to the curl line the page shows and is sent to a
 * real server by `npm run docs`, which writes the answer under it, so neither can drift (the
 * parity test reruns them). Ids and times that change on every run are normalised.
 */
export interface ExampleRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** May use a variable an earlier request captured, as `$id`. */
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Set this shell variable from the answer's `id` (rendered as `name=$(curl … | jq -r .id)`, which prints nothing). */
  capture?: string;
  /**
   * Show the answer's body (default); its chunks as a comment line under the command (`"text"
   * start–end, …`); these headers with the status line (`curl -si`); nothing; or nothing and
   * print nothing (`-o /dev/null`: a setup step).
   */
  show?: 'body' | 'spans' | 'none' | 'quiet' | { headers: string[] };
  /** Said after the spans, in parentheses; or, for a quiet request, as a comment after it. */
  note?: string;
}

export interface Example {
  /** The page's marker: <!-- example:NAME:start --> … <!-- example:NAME:end -->. */
  name: string;
  /** The page holding it (README.md, a page of docs/ or a plugin README), relative to the repository root (default README.md). */
  file?: string;
  requests: ExampleRequest[];
}

const HOST = 'localhost:8000';

/** Body JSON as a person writes it on one line: a space after `:` and `,`. */
function humanJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(humanJson).join(', ')}]`;
  if (value && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${humanJson(v)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}

/** The shell lines for one request, runnable as pasted (single-quoted bodies, so none may hold a quote). */
export function renderCurl(r: ExampleRequest): string {
  const show = r.show ?? 'body';
  const url = r.path.includes('?') || r.path.includes('$') ? `"${HOST}${r.path}"` : `${HOST}${r.path}`;
  const parts = [`curl -s${typeof show === 'object' ? 'i' : ''}${show === 'quiet' ? ' -o /dev/null' : ''}`];
  if (r.method && r.method !== 'GET' && !(r.method === 'POST' && r.body !== undefined)) parts.push(`-X ${r.method}`);
  parts.push(url);
  for (const [k, v] of Object.entries(r.headers ?? {})) parts.push(`-H '${k}: ${v}'`);
  let line = parts.join(' ');
  if (show === 'quiet' && r.note) line += `  # ${r.note}`;
  if (r.body !== undefined) {
    const json = humanJson(r.body);
    if (json.includes("'")) throw new Error(`example body holds a single quote, which the shell line cannot carry: ${json}`);
    line += ` -H 'content-type: application/json' \\\n  -d '${json}'`;
  }
  if (!r.capture) return line;
  // Printing the answer too would need tee to /dev/stderr, which fails where stderr is a socket: show it with a GET instead.
  if (show !== 'none') throw new Error(`example ${r.path}: a request that captures ${r.capture} prints nothing; set show: 'none' and GET the answer`);
  return `${r.capture}=$(${line} | jq -r .id)`;
}

/** An answer laid out as the pages show it: a list one item per line; an object one key per line, its lists of objects one per line. */
export function formatAnswer(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => JSON.stringify(v)).join(',\n ')}]`;
  if (value && typeof value === 'object') {
    const lines = Object.entries(value).map(([k, v]) =>
      Array.isArray(v) && v.length > 1 && v.every((x) => x && typeof x === 'object')
        ? `"${k}":[\n  ${v.map((x) => JSON.stringify(x)).join(',\n  ')}]`
        : `"${k}":${JSON.stringify(v)}`,
    );
    return `{${lines.join(',\n ')}}`;
  }
  return JSON.stringify(value);
}

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
const TIME = /\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\b/g;

/** Replaces each distinct id and time, in order of appearance across all examples, by a stable stand-in. */
class Normaliser {
  private ids = new Map<string, string>();
  private times = new Map<string, string>();
  constructor(private readonly replacements: [string, string][]) {}
  apply(text: string): string {
    let out = text.replace(UUID, (m) => this.stand(this.ids, m, (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`));
    out = out.replace(TIME, (m) => this.stand(this.times, m, (n) => `2026-01-01T00:00:${String(n).padStart(2, '0')}.000Z`));
    for (const [from, to] of this.replacements) out = out.split(from).join(to);
    return out;
  }
  private stand(map: Map<string, string>, m: string, make: (n: number) => string): string {
    if (!map.has(m)) map.set(m, make(map.size + 1));
    return map.get(m)!;
  }
}

/**
 * Run the examples in order against the Koa callback on a free port (shared variables carry
 * captured ids from one example to the next) and return each example's block.
 * `replacements` turns machine-specific text (e.g. a cache path) into what a default install shows.
 */
export async function runExamples(
  callback: Parameters<typeof createServer>[1],
  examples: Example[],
  replacements: [string, string][] = [],
): Promise<[name: string, block: string][]> {
  const server = createServer(callback);
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const vars = new Map<string, string>();
  const normaliser = new Normaliser(replacements);
  const out: [string, string][] = [];
  try {
    for (const ex of examples) {
      const shown: string[] = [];
      const lines: string[] = [];
      for (const r of ex.requests) {
        lines.push(renderCurl(r));
        const path = r.path.replace(/\$(\w+)/g, (_, v: string) => vars.get(v) ?? `$${v}`);
        const res = await fetch(base + path, {
          method: r.method ?? (r.body === undefined ? 'GET' : 'POST'),
          headers: { ...(r.body === undefined ? {} : { 'content-type': 'application/json' }), ...r.headers },
          body: r.body === undefined ? undefined : JSON.stringify(r.body),
        });
        const text = await res.text();
        const body = text ? (JSON.parse(text) as unknown) : undefined;
        if (r.capture) vars.set(r.capture, String((body as { id?: unknown })?.id));
        const show = r.show ?? 'body';
        if (show === 'spans') {
          const chunks = body as { text: string; start_index: number; end_index: number }[];
          if (!Array.isArray(chunks)) throw new Error(`example ${ex.name}: expected chunks, got ${text}`);
          lines.push(`# ${chunks.map((c) => `${JSON.stringify(c.text)} ${c.start_index}–${c.end_index}`).join(', ')}${r.note ? `   (${r.note})` : ''}`);
          continue;
        }
        if (show === 'none' || show === 'quiet' || (show === 'body' && body === undefined)) continue;
        if (show === 'body') shown.push(formatAnswer(body));
        else
          shown.push(
            [
              `HTTP/1.1 ${res.status} ${res.statusText}`,
              ...show.headers.filter((h) => res.headers.has(h)).map((h) => `${h}: ${res.headers.get(h)}`),
              '...',
            ].join('\n'),
          );
      }
      const lang = ex.requests.some((r) => typeof r.show === 'object') ? '' : 'json';
      const answers = shown.map((s) => `\`\`\`${lang}\n${normaliser.apply(s)}\n\`\`\``).join('\n');
      // Commands whose spans are shown stand apart, each with its comment, as people read them.
      const sh = ex.requests.some((r) => r.show === 'spans') ? lines.join('\n').replace(/\n(?=curl )/g, '\n\n') : lines.join('\n');
      out.push([ex.name, `\`\`\`sh\n${sh}\n\`\`\`${answers ? `\n${answers}` : ''}`]);
    }
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
  }
  return out;
}
