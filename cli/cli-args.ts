import { parseArgs } from 'node:util';
import { closest } from '../kernel/suggest.js';
import { Usage } from './chunk.js';

/** A command's positional arguments and its flags (`--name value`, `--name=value`, or a bare boolean); an unknown flag is a Usage error with a did-you-mean. */
export function cliArgs(
  args: string[],
  strings: string[],
  booleans: string[],
  help: string,
): { positional: string[]; flags: Record<string, string | boolean | undefined> } {
  const options = Object.fromEntries([...strings.map((s) => [s, { type: 'string' as const }]), ...booleans.map((b) => [b, { type: 'boolean' as const }])]);
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { positional: positionals, flags: values as Record<string, string | boolean | undefined> };
  } catch (e) {
    const unknown = /'(--[^']+)'/.exec((e as Error).message)?.[1];
    const guess = unknown
      ? closest(
          unknown,
          Object.keys(options).map((o) => `--${o}`),
        )
      : undefined;
    throw new Usage(`${(e as Error).message.replace(/\.?$/, '.')}${guess ? ` Did you mean '${guess}'?` : ''} Run: ${help}`);
  }
}
