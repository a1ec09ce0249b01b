#!/usr/bin/env node
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { closest } from '../kernel/suggest.js';
import { VERSION } from '../service/version.js';
import { createLogger, type Level } from '../service/logger.js';
import { startupLine } from '../service/startup-line.js';
import { envOf, flagOf, helpText, resolveSettings, SETTINGS } from '../service/settings.js';

const COMMANDS = ['serve', 'chunk', 'eval', 'process', 'ingest', 'search'];

/** `chunkd --help`: the commands first, one line each; each command's own --help has its flags (serve's settings under chunkd serve --help). */
export const OVERVIEW = `Usage: chunkd COMMAND [options]   (from a clone or an install: npx chunkd COMMAND)

Commands:
  serve     Run the HTTP server (chunking, pipelines, files, jobs, stores, playground)
  ingest    Write every file of a folder to a store: chunkd ingest ./docs
  search    Search a store's collection: chunkd search "a question"
  chunk     Chunk a text or file on the command line: chunkd chunk notes.txt
  process   Read a file with a chef (PDF, DOCX, HTML…) and print its text
  eval      Score chunking candidates on a benchmark

chunkd COMMAND --help shows a command's options; chunkd serve --help lists every server setting.
chunkd --version prints the version.
Start here: docs/from-a-folder-to-answers.md (a folder of files to search results in two commands).`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // Each command's module is loaded when it runs: --version, a typo or one command does not pay
  // for the server and every other command.
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    const [{ INGEST_HELP }, { SEARCH_HELP }, { CHUNK_HELP }, { PROCESS_HELP }, { EVAL_HELP }] = await Promise.all([
      import('./ingest.js'),
      import('./search.js'),
      import('./chunk.js'),
      import('./process.js'),
      import('./eval.js'),
    ]);
    console.log(`${OVERVIEW}\n\n${INGEST_HELP}\n\n${SEARCH_HELP}\n\n${CHUNK_HELP}\n\n${PROCESS_HELP}\n\n${EVAL_HELP}`);
    return command ? 0 : 1;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    console.log(VERSION);
    return 0;
  }
  if (command === 'chunk') return (await import('./chunk.js')).chunkCommand(rest);
  if (command === 'eval') return (await import('./eval.js')).evalCommand(rest);
  if (command === 'process') return (await import('./process.js')).processCommand(rest);
  if (command === 'ingest') return (await import('./ingest.js')).ingestCommand(rest);
  if (command === 'search') return (await import('./search.js')).searchCommand(rest);
  if (command !== 'serve') {
    const guess = closest(command, [...COMMANDS, '--version', '--help']);
    console.error(`Unknown command '${command}'.${guess ? ` Did you mean '${guess}'?` : ''} Run: chunkd --help (the commands), or chunkd serve --help`);
    return 2;
  }
  const options = Object.fromEntries(
    Object.entries(SETTINGS).map(([name, s]) => [name, { type: s.type === 'boolean' ? ('boolean' as const) : ('string' as const) }]),
  );
  let flags;
  try {
    flags = parseArgs({ args: rest, options: { ...options, help: { type: 'boolean' } }, strict: true }).values;
  } catch (e) {
    console.error(`${(e as Error).message.replace(/\.?$/, '.')}${suggestion(e, Object.keys(options))}\nRun: chunkd serve --help`);
    return 2;
  }
  if (flags.help) {
    console.log(helpText());
    return 0;
  }
  let settings;
  try {
    settings = resolveSettings(flags as Record<string, string | boolean | undefined>);
  } catch (e) {
    console.error((e as Error).message);
    return 2;
  }
  if (settings.reload) return reload(rest);

  const logger = createLogger(settings.logLevel as Level);
  const { serve } = await import('../server/serve.js');
  const running = await serve(settings, logger);
  // For people, on stdout: stderr carries only the JSON log lines, for machines.
  console.log(startupLine(settings.host, running.port, running.pages));
  const onSignal = (signal: NodeJS.Signals) => {
    process.once(signal, () => process.exit(1)); // a second signal while draining: stop now
    void running.stop(signal).then(() => process.exit(0));
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  return -1; // keep running
}

/** A did-you-mean for an unknown option (node:util parseArgs names it in its message). */
function suggestion(e: unknown, names: string[]): string {
  if ((e as { code?: string }).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return '';
  const flag = /'(-{1,2}[^']+)'/.exec((e as Error).message)?.[1];
  const guess = flag ? closest(flag.replace(/^-+/, '').split('=')[0]!, [...names, 'help']) : undefined;
  return guess ? ` Did you mean '--${guess}'?` : '';
}

/** Development only: re-run this command under Node's file watcher, which restarts on changes. */
function reload(args: string[]): Promise<number> {
  const script = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, ['--watch', ...process.execArgv, script, 'serve', ...args.filter((a) => a !== flagOf('reload'))], {
    stdio: 'inherit',
    env: { ...process.env, [envOf('reload')]: 'false' },
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 0)));
}

main(process.argv.slice(2)).then(
  (code) => code >= 0 && process.exit(code),
  (e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
