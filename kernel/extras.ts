import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
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

/** Packages a missing extra lacks, in declaration order. */
export function missingPackages(extras: readonly Extra[]): string[] {
  return extras.flatMap((e) => e.packages).filter((p) => !isInstalled(p));
}

export function installCommand(packages: readonly string[]): string {
  return `npm install ${packages.join(' ')}`;
}

/**
 * CHUNKD_HIDE_PACKAGES lets an operator (and the tests) see how the server behaves without an
 * optional package, without uninstalling it.
 */
function hiddenPackages(): Set<string> {
  return new Set((process.env.CHUNKD_HIDE_PACKAGES ?? '').split(',').map((s) => s.trim()).filter(Boolean));
}
