import type { Issue } from '../kernel/errors.js';

/**
 * A slug, as both of Chonkie's cloud clients check it before sending one (and refuse any other,
 * also in a pipeline they list): lowercase ASCII letters, digits, '-' and '_'. None of these needs
 * percent-encoding in a path, so a slug is the same in a URL as in a body.
 */
export const SLUG_PATTERN = '^[a-z0-9_-]+$';
const SLUG = new RegExp(SLUG_PATTERN);
export const SLUG_RULE = "lowercase letters a-z, digits, '-' and '_'";

/**
 * Fixed words of the slug API's paths (`POST /v1/pipeline/validate`): a pipeline named so could
 * not be told from the route, so no pipeline may take one as its name, through either API.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(['validate']);

export const isSlug = (name: string): boolean => SLUG.test(name) && !RESERVED_NAMES.has(name);

/** The 422 issue for a name that is a reserved word, on create or rename in either API. */
export function reservedNameIssue(name: unknown, loc: (string | number)[]): Issue | undefined {
  if (typeof name !== 'string' || !RESERVED_NAMES.has(name)) return undefined;
  return {
    loc,
    msg: `'${name}' is reserved (POST /v1/pipeline/${name} is a route of its own), so no pipeline can be named so: choose another name.`,
    type: 'reserved_name',
  };
}

/**
 * Why a path segment cannot name a pipeline of the slug API, or undefined when it can. A slug needs
 * no percent-encoding, so an encoded segment is not a slug's spelling: as every other path in
 * chunkd, it has one form only (server/dispatch.ts), and `%76alidate` is not a way round the route.
 */
export function slugPathProblem(raw: string, slug: string): string | undefined {
  if (raw !== slug) return `'${raw}' is percent-encoded, and a slug is spelled as is (it holds only ${SLUG_RULE}).`;
  if (RESERVED_NAMES.has(slug)) return `'${slug}' is a reserved word of this API, never a pipeline's slug.`;
  if (!SLUG.test(slug)) return `'${slug}' is not a slug: a slug holds only ${SLUG_RULE}, as Chonkie's clients require.`;
  return undefined;
}
