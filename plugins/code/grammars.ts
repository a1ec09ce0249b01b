import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Language, Parser, type Tree } from 'web-tree-sitter';

const require = createRequire(import.meta.url);

/** The WASM runtime starts once per thread (each worker thread has its own). */
let runtime: Promise<void> | undefined;

/** One parser per language per thread, made on first use: loading a grammar costs tens of ms. */
const parsers = new Map<string, Promise<Parser>>();

/**
 * A parser for a canonical language name. Sharing it is safe: parse() is synchronous, so two
 * requests on one thread never interleave inside it.
 */
export function parserFor(language: string): Promise<Parser> {
  let p = parsers.get(language);
  if (!p) {
    p = build(language);
    parsers.set(language, p);
    p.catch(() => parsers.delete(language));
  }
  return p;
}

/**
 * C library functions that some grammars' scanners import and web-tree-sitter 0.25's runtime does
 * not export: bash calls isalpha on ordinary input (without it, parsing most shell scripts throws),
 * and several grammars reach __assert_fail or abort only on an internal failure, which becomes a
 * catchable error instead of a call to a missing function.
 */
const LIBC: Record<string, (...args: number[]) => number> = {
  isalpha: (c) => ((c | 32) >= 97 && (c | 32) <= 122 ? 1 : 0),
  __assert_fail: () => {
    throw new Error('a tree-sitter grammar assertion failed');
  },
  abort: () => {
    throw new Error('a tree-sitter grammar aborted');
  },
};

/** The global WebAssembly API (typed here: the project's TypeScript libs do not include the DOM's). */
const wasm = (globalThis as unknown as { WebAssembly: { instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: unknown; module: unknown }> } })
  .WebAssembly;

/**
 * Emscripten's documented `instantiateWasm` hook hands us the import object the grammars later
 * resolve their missing symbols from; the runtime is instantiated exactly as it would be otherwise.
 */
async function startRuntime(): Promise<void> {
  const bytes = await readFile(require.resolve('web-tree-sitter/tree-sitter.wasm'));
  // The hook can only report success: a failure has to reach the caller another way.
  let fail: (e: unknown) => void = () => {};
  const failed = new Promise<never>((_, reject) => (fail = reject));
  const options = {
    instantiateWasm(imports: { env: Record<string, unknown> }, done: (instance: unknown, module: unknown) => void) {
      for (const [name, fn] of Object.entries(LIBC)) if (!(name in imports.env)) imports.env[name] = fn;
      wasm.instantiate(bytes, imports).then(({ instance, module }) => done(instance, module), fail);
      return {};
    },
  };
  await Promise.race([Parser.init(options as unknown as Parameters<typeof Parser.init>[0]), failed]);
}

/** After a grammar failed mid-parse its parser may be in any state: the next use builds a new one. */
export function discardParser(language: string): void {
  const p = parsers.get(language);
  parsers.delete(language);
  p?.then((parser) => parser.delete()).catch(() => {});
}

/**
 * Parse `text` with the language's parser: a tree, or undefined when the grammar itself failed on
 * this text (a scanner assertion). The failed parser is discarded.
 */
export async function parseWith(language: string, text: string): Promise<Tree | undefined> {
  const parser = await parserFor(language);
  try {
    return parser.parse(text) ?? undefined;
  } catch {
    discardParser(language);
    return undefined;
  }
}

async function build(language: string): Promise<Parser> {
  await (runtime ??= startRuntime());
  const grammar = await Language.load(await readFile(grammarPath(language)));
  return new Parser().setLanguage(grammar);
}

/** Found through the package's own location, so any install layout (hoisted or nested) works. */
export function grammarDir(): string {
  return join(dirname(require.resolve('tree-sitter-wasms/package.json')), 'out');
}

export function grammarPath(language: string): string {
  return join(grammarDir(), `tree-sitter-${language}.wasm`);
}
