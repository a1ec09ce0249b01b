/**
 * What a search may keep: one document, and metadata fields each equal to a value or in a list
 * (every field must hold). Handshakes push it down to their engine with values bound or escaped;
 * `matchesFilter` is the rule itself, which a handshake without a native filter applies and the
 * stores service checks every hit against.
 */

/** A value a metadata field is compared with: a string, a finite number or a boolean. */
export type FilterValue = string | number | boolean;

/** One field's condition: equal to a value, or equal to any value of `in`. */
export type FieldFilter = FilterValue | { in: FilterValue[] };

export interface StoreFilter {
  document?: string;
  metadata?: Record<string, FieldFilter>;
}

/** The values a field's condition accepts. */
export const acceptedValues = (condition: FieldFilter): FilterValue[] => (typeof condition === 'object' && condition !== null ? condition.in : [condition]);

/** Whether a stored chunk (its document id and metadata) holds every condition of the filter. */
export function matchesFilter(row: { document: string; metadata: Record<string, unknown> }, filter: StoreFilter | undefined): boolean {
  if (!filter) return true;
  if (filter.document !== undefined && row.document !== filter.document) return false;
  for (const [key, condition] of Object.entries(filter.metadata ?? {})) {
    const value = row.metadata[key];
    if (!acceptedValues(condition).some((v) => v === value)) return false;
  }
  return true;
}

/** Whether a filter names metadata fields (a handshake that cannot push them down then filters its hits). */
export const filtersMetadata = (filter: StoreFilter | undefined): boolean => Object.keys(filter?.metadata ?? {}).length > 0;
