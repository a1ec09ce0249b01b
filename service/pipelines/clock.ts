let last = 0;

/**
 * ISO 8601 UTC timestamps that strictly increase within the process, so an update always changes
 * updated_at even when it lands in the same millisecond as the write before it.
 */
export function timestamp(): string {
  last = Math.max(Date.now(), last + 1);
  return new Date(last).toISOString();
}
