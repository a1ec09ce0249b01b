#!/usr/bin/env node
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { boot } from './boot.js';
import { createLogger, type Level } from './logger.js';
import { helpText, resolveSettings, SETTINGS } from './settings.js';

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(helpText());
    return command ? 0 : 1;
  }
  if (command !== 'serve') {
    console.error(`Unknown command '${command}'. Run: chunkd serve --help`);
    return 2;
  }
  const options = Object.fromEntries(
    Object.entries(SETTINGS).map(([name, s]) => [name, { type: s.type === 'boolean' ? ('boolean' as const) : ('string' as const) }]),
  );
  let flags;
  try {
    flags = parseArgs({ args: rest, options: { ...options, help: { type: 'boolean' } }, strict: true }).values;
  } catch (e) {
    console.error(`${(e as Error).message}\nRun: chunkd serve --help`);
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
  const booted = await boot(settings, logger);
  const server = createServer(booted.app.koa.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, resolve);
  });
  const { port } = server.address() as AddressInfo; // the bound port, also when --port 0 asked for any
  logger.log('info', 'listening', { url: `http://${settings.host}:${port}`, port, plugins: booted.deps.registry.list().map((p) => p.route) });
  const stop = (signal: string) => {
    logger.log('info', 'shutting down', { signal });
    server.close(() => void booted.close().then(() => process.exit(0)));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return -1; // keep running
}

/** Development only: re-run this command under Node's file watcher, which restarts on changes. */
function reload(args: string[]): Promise<number> {
  const script = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, ['--watch', ...process.execArgv, script, 'serve', ...args.filter((a) => a !== '--reload')], { stdio: 'inherit', env: { ...process.env, CHUNKD_RELOAD: 'false' } });
  return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 0)));
}

main(process.argv.slice(2)).then(
  (code) => code >= 0 && process.exit(code),
  (e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
