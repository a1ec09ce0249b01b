import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ChunkdError } from './errors.js';
import { host } from './host.js';
import type { Extra } from './plugin.js';

const require = createRequire(import.meta.url);

/**
 * Whether an npm package is installed, found by walking node_modules lookup paths for its
 * package.json: nothing is imported or executed (and `exports` maps cannot hide it).
 */
export function isInstalled(pkg: string): boolean {
  if (hiddenPackages().has(pkg)) return false;
  const paths = require.resolve.paths(pkg) ?? [];
  return paths.some((dir) => existsSync(join(dir, pkg, 'package.json')));
}

/** Packages of the required extras that are not installed, in declaration order. */
export function missingPackages(extras: readonly Extra[]): string[] {
  return extras
    .filter((e) => e.required !== false)
    .flatMap((e) => e.packages)
    .filter((p) => !isInstalled(p));
}

/** The 501 answered while an extra is missing: it names the packages and the install command. */
export function missingExtraError(subject: string, packages: readonly string[]): ChunkdError {
  return new ChunkdError(
    'MISSING_EXTRA',
    `${subject} needs optional packages that are not installed: ${packages.join(', ')}. Install them: ${installCommand(packages)}`,
  );
}

/** For an optional extra (`required: false`): throw the 501 when a config needs it and it is missing. */
export function requireExtra(extra: Extra, subject: string): void {
  const missing = extra.packages.filter((p) => !isInstalled(p));
  if (missing.length) throw missingExtraError(subject, missing);
}

export function installCommand(packages: readonly string[]): string {
  return `npm install ${packages.join(' ')}`;
}

/**
 * Packages the service says to treat as absent (CHUNKD_HIDE_PACKAGES, read by service/kernel-host.ts),
 * so an operator (and the tests) see how the server behaves without an optional package, without
 * uninstalling it.
 */
function hiddenPackages(): Set<string> {
  return new Set(host().hiddenPackages);
}
