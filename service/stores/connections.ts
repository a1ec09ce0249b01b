import { CONNECTION_NAME } from '../../wire/stores.js';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isChunkdError } from '../../kernel/errors.js';
import { secretFields } from '../../kernel/handshake.js';
import type { Registry } from '../../kernel/registry.js';
import { unknownNameMessage } from '../../kernel/suggest.js';
import { flagOf, settingText } from '../settings.js';

/**
 * The vector store connections the operator configured. Connections are server settings, never
 * request data: a request names a connection, so chunkd only ever connects where the operator said.
 */
export interface Connection {
  name: string;
  handshake: string;
  /** The handshake's connection config, `env:` values resolved, defaults filled in. Holds secrets: never listed, logged or put in an error. */
  config: Record<string, unknown>;
  /** The values of its secret fields, to strip from anything that could reach a log. */
  secrets: string[];
}

export const DEFAULT_STORE = 'default';

/**
 * A stores setting that cannot be used: start-up stops with this message, which names the file and
 * the entry. Whatever it quotes, the credentials of every URL in it are blanked.
 */
export class StoresConfigError extends Error {
  constructor(message: string) {
    super(redactUrlCredentials(message));
  }
}

/** Keys that would reach an object's prototype when copied: refused anywhere in an entry. */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The user and password of every URL in `text` (`scheme://user:password@host` → `scheme://[secret]@host`), whatever field or type held it. */
export function redactUrlCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#"'\\]*@/gi, '$1[secret]@');
}

/** A reserved key anywhere in `value` (an entry, or an object inside one): its path, else undefined. */
function reservedKey(value: unknown, path: string[] = []): string[] | undefined {
  if (!value || typeof value !== 'object') return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (RESERVED_KEYS.has(key)) return [...path, key];
    const found = reservedKey(inner, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/** Every string inside `value` (a secret given as an object or a list is still secret). */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return value.length ? [value] : [];
  if (!value || typeof value !== 'object') return [];
  return Object.values(value).flatMap(stringsIn);
}

/** The connections of the `--stores` setting (a file, or the JSON itself), or the embedded default. */
export function readConnections(setting: string, dataDir: string, registry: Registry, env: NodeJS.ProcessEnv = process.env): Connection[] {
  if (!setting.trim()) return [defaultConnection(dataDir, registry)];
  const inline = setting.trimStart().startsWith('[');
  const where = inline ? settingText('stores') : `${flagOf('stores')} file ${setting}`;
  let text = setting;
  if (!inline) {
    try {
      text = readFileSync(setting, 'utf8');
    } catch (e) {
      throw new StoresConfigError(
        `${where} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): give the path of a JSON file, or the JSON array itself.`,
      );
    }
  }
  let entries: unknown;
  try {
    entries = JSON.parse(text);
  } catch (e) {
    throw new StoresConfigError(`${where} is not valid JSON (${(e as Error).message}): it holds an array of {"name", "handshake", ...connection settings}.`);
  }
  if (!Array.isArray(entries) || entries.length === 0)
    throw new StoresConfigError(`${where} must hold a non-empty JSON array of {"name", "handshake", ...connection settings}.`);
  const seen = new Set<string>();
  return entries.map((entry, i) => {
    const connection = parseEntry(entry, `${where}, entry ${i}`, registry, env);
    if (seen.has(connection.name))
      throw new StoresConfigError(`${where}, entry ${i}: a second connection is named '${connection.name}': connection names are unique.`);
    seen.add(connection.name);
    return connection;
  });
}

/** The embedded default: the store of the handshake whose manifest offers one (LanceDB), under the data directory. */
function defaultConnection(dataDir: string, registry: Registry): Connection {
  const plugin = registry.list().find((p) => p.kind === 'handshake' && p.manifest.embeddedDefault);
  if (!plugin) throw new StoresConfigError('No handshake offers an embedded default store: name the store connections with --stores.');
  const config = plugin.manifest.embeddedDefault!(join(resolve(dataDir), 'stores', DEFAULT_STORE));
  return parseEntry({ ...config, name: DEFAULT_STORE, handshake: plugin.name }, 'the default store', registry, {});
}

function parseEntry(entry: unknown, where: string, registry: Registry, env: NodeJS.ProcessEnv): Connection {
  if (!entry || typeof entry !== 'object' || Array.isArray(entry))
    throw new StoresConfigError(`${where} must be an object {"name", "handshake", ...connection settings}.`);
  const reserved = reservedKey(entry);
  if (reserved)
    throw new StoresConfigError(
      `${where}: the key "${reserved.join('.')}" is not a connection setting (${[...RESERVED_KEYS].join(', ')} are refused anywhere in an entry): remove it.`,
    );
  const { name, handshake, ...rest } = entry as Record<string, unknown>;
  if (typeof name !== 'string' || !CONNECTION_NAME.test(name))
    throw new StoresConfigError(`${where}: "name" must be lower-case letters, digits, _ and - (at most 63), e.g. "docs".`);
  const at = `${where} ("${name}")`;
  if (typeof handshake !== 'string') throw new StoresConfigError(`${at}: "handshake" names the kind of store, e.g. "lancedb".`);
  const plugin = registry.find('handshake', handshake);
  if (!plugin) throw new StoresConfigError(`${at}: ${registry.unknownMessage('handshake', handshake)}`);
  const secretKeys = secretFields(plugin.manifest.config);
  const config: Record<string, unknown> = {};
  // Every value read from the environment is kept out of messages and logs, whatever its field: a secret may be put in the wrong one.
  const fromEnvironment: string[] = [];
  for (const [key, value] of Object.entries(rest)) {
    config[key] = fromEnv(value, `${at}, "${key}"`, env);
    if (config[key] !== value && typeof config[key] === 'string') fromEnvironment.push(config[key]);
  }
  const secrets = [...new Set([...secretKeys.flatMap((k) => stringsIn(config[k])), ...fromEnvironment])];
  try {
    plugin.validateConfig(config, []);
  } catch (e) {
    if (!isChunkdError(e)) throw e;
    // A validation message may quote the value it refused: a secret one is blanked.
    const known = Object.keys(plugin.manifest.config.properties);
    const unknown = Object.keys(rest).filter((k) => !known.includes(k));
    const hint = unknown.length ? ` (${handshake} has no setting ${unknown.map((k) => `"${k}"`).join(', ')}; its settings: ${known.join(', ')})` : '';
    throw new StoresConfigError(redact(`${at}: ${e.message}${hint}`, secrets));
  }
  return { name, handshake, config, secrets };
}

/** `"env:VAR"` → the variable's value, read once at start; a missing variable stops start-up. */
function fromEnv(value: unknown, where: string, env: NodeJS.ProcessEnv): unknown {
  if (typeof value !== 'string' || !value.startsWith('env:')) return value;
  const name = value.slice(4);
  const found = env[name];
  if (found === undefined || found === '')
    throw new StoresConfigError(`${where} is "${value}", but the environment variable ${name} is not set: set it, or give the value itself.`);
  return found;
}

/** `text` with every secret value (and the URL-encoded form of it) replaced, for logs and errors. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    // A value of a few characters is blanked where it is quoted whole (else every "4" of a message would go).
    const forms = secret.length < 4 ? [JSON.stringify(secret)] : [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];
    for (const form of new Set(forms)) out = out.split(form).join(secret.length < 4 ? '"[secret]"' : '[secret]');
    // The credentials of a URL secret may appear on their own (a driver's message names the user or password).
    try {
      const url = new URL(secret);
      for (const part of [url.password, decodeURIComponent(url.password)]) if (part.length >= 4) out = out.split(part).join('[secret]');
    } catch {
      // not a URL
    }
  }
  return redactUrlCredentials(out);
}
