import { isIPv6 } from 'node:net';

/**
 * A URL a browser on this machine can open: a wildcard address (0.0.0.0, ::) is where the server
 * listens, not an address to browse to, so it becomes the loopback; an IPv6 literal gets brackets.
 */
export function browserUrl(host: string, port: number): string {
  const h = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? 'localhost' : isIPv6(host) ? `[${host}]` : host;
  return `http://${h}:${port}`;
}

/** The one human line printed at start-up, beside the JSON logs: where to point a browser. */
export function startupLine(host: string, port: number, pages: Record<string, string>): string {
  const base = browserUrl(host, port);
  const where = Object.entries(pages).map(([name, path]) => `${name} ${base}${path}`);
  return `chunkd is listening on ${base}${where.length ? ` (${where.join(', ')})` : ''}`;
}
