import type { Context, Next } from 'koa';

/**
 * What a page served here may load: its own origin only. The pages are /playground (its bundle),
 * /docs (swagger-ui-dist) and /redoc (redoc's standalone bundle), all served from this server:
 * - styles may be inline: Swagger UI and ReDoc set style attributes and inject <style> elements
 *   (ReDoc through styled-components) at run time;
 * - images and fonts may be data: URIs (Swagger UI's icons, ReDoc's inline SVG);
 * - workers may come from blob: URLs (ReDoc builds its search index in one);
 * - no inline script, no eval, no plugin, no <base>, and no page of another origin may frame ours.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The headers every answer carries, whatever it is (a page, JSON, NDJSON, an error, a 404, a 413). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  // The pages link only to this server; an API answer has no business telling another site where a request came from.
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

/**
 * Sets SECURITY_HEADERS before anything else runs: the error layer sets its own headers beside
 * them, and a stream written by hand (NDJSON) writes the response's headers as they are by then.
 */
export function securityHeaders() {
  // Straight onto the Node response: nothing has been sent yet and every value is a string, the
  // two things Koa's ctx.set checks per header before it does the same.
  const entries = Object.entries(SECURITY_HEADERS);
  return (ctx: Context, next: Next) => {
    const res = ctx.res;
    for (let i = 0; i < entries.length; i++) res.setHeader(entries[i]![0], entries[i]![1]);
    return next();
  };
}
