/**
 * Which chef reads a file: chosen from the chefs' manifests alone (extensions, media types, a
 * sniff of the bytes), and how the docs list each chef.
 */
import { ChunkdError } from '../errors.js';
import { installCommand } from '../extras.js';
import type { Plugin, Registry } from '../registry.js';

/** What an uploaded file is known by when a chef is chosen for it. */
export interface FileFacts {
  /** The client's file name (only its extension is used). */
  filename: string;
  /** The part's Content-Type, when the client sent one. */
  mime?: string;
}

const baseType = (mime: string | undefined) => mime?.split(';')[0]?.trim().toLowerCase() || undefined;

/**
 * The chef for a file, from the chefs' manifests alone: the longest extension a chef lists that
 * ends the name, else a media type a chef lists exactly, else one it lists as `type/*`, else the
 * first chef whose `sniff` accepts the bytes (only when the client sent no media type, or
 * application/octet-stream). Undefined when none reads it.
 */
export function chefFor(registry: Registry, facts: FileFacts, bytes?: Uint8Array): Plugin | undefined {
  const chefs = registry.list('chef');
  const name = facts.filename.toLowerCase();
  let best: { chef: Plugin; length: number } | undefined;
  for (const chef of chefs) {
    for (const ext of chef.manifest.extensions ?? []) if (name.endsWith(ext) && ext.length > (best?.length ?? 0)) best = { chef, length: ext.length };
  }
  if (best) return best.chef;
  const mime = baseType(facts.mime);
  if (mime) {
    const exact = chefs.find((c) => c.manifest.mediaTypes?.includes(mime));
    if (exact) return exact;
    const wildcard = `${mime.split('/')[0]}/*`;
    const family = chefs.find((c) => c.manifest.mediaTypes?.includes(wildcard));
    if (family) return family;
  }
  // Only a file whose type the client did not know is sniffed: a declared image/png stays a 415.
  if (!bytes || (mime !== undefined && mime !== 'application/octet-stream')) return undefined;
  return chefs.find((c) => c.manifest.sniff?.(bytes));
}

/** The 415 for a file no chef reads: it lists what the chefs read, and how to name one. */
export function unsupportedFile(registry: Registry, facts: FileFacts): ChunkdError {
  const chefs = registry
    .list('chef')
    .map((c) => `${c.name} (${[...(c.manifest.extensions ?? [])].slice(0, 6).join(', ') || (c.manifest.mediaTypes ?? []).join(', ')})`);
  const type = baseType(facts.mime);
  return new ChunkdError(
    'UNSUPPORTED_MEDIA_TYPE',
    `Cannot read text from '${facts.filename}'${type ? ` (${type})` : ''}: no chef reads it. Upload a file one of these chefs reads, or name one in the form field 'chef': ${chefs.join('; ')}.`,
  );
}

/** One chef as the docs list it: what it reads and what it needs. */
export function chefInfo(chef: Plugin) {
  const extra = chef.manifest.extras[0];
  return {
    name: chef.name,
    extensions: [...(chef.manifest.extensions ?? [])],
    media_types: [...(chef.manifest.mediaTypes ?? [])],
    extra: extra ? { name: extra.name, packages: [...extra.packages], reason: extra.reason, install: installCommand(extra.packages) } : null,
    available: chef.missing.length === 0,
  };
}
