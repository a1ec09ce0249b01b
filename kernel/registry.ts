import type { Static, TObject } from '#typebox';
import Type from '#typebox';
import { ChunkdError } from './errors.js';
import { missingExtraError, missingPackages } from './extras.js';
import type { HandshakeImpl } from './handshake.js';
import { KINDS, type AnyManifest, type ChefImpl, type ChunkerImpl, type Kind, type RefineryImpl } from './plugin.js';
import { aliasesOf, bodySchema } from './body-schema.js';
import { unknownNameMessage } from './suggest.js';
import { compileValidator, type Validator } from './validation.js';

const INSTANCE_CACHE_SIZE = 64;

/** A plugin as the kernel holds it: its manifest, where it came from, and validators compiled once. */
export class Plugin {
  readonly body: TObject;
  readonly validateBody: Validator<Record<string, unknown>>;
  readonly validateConfig: Validator<Record<string, unknown>>;
  readonly knownKeys: ReadonlySet<string>;
  /** Keys clients send under another name, by alias (kernel/request.ts). */
  readonly aliases: Record<string, string>;
  readonly configKeys: readonly string[];
  private readonly instances = new Map<string, Promise<ChunkerImpl | RefineryImpl | ChefImpl>>();
  /** The key last handed out (the LRU's newest entry), whose position needs no refresh. */
  private newest: string | undefined;
  /** The newest entry's implementation once built: what builtInstance hands out without a promise. */
  private newestBuilt: ChunkerImpl | RefineryImpl | ChefImpl | undefined;
  /**
   * The last config asked about and its key: a request asks for its instance more than once
   * (checked when its documents are made, then run), and a config is not changed once validated.
   */
  private lastConfig: object | undefined;
  private lastKey = '';

  constructor(
    readonly manifest: AnyManifest,
    readonly source: string,
  ) {
    this.body = bodySchema(manifest);
    this.validateBody = compileValidator(this.body);
    this.configKeys = Object.keys(manifest.config.properties);
    this.validateConfig = compileValidator(Type.Object(manifest.config.properties, { additionalProperties: false }));
    this.knownKeys = new Set(Object.keys(this.body.properties));
    this.aliases = aliasesOf(manifest, this.knownKeys);
  }

  get name(): string {
    return this.manifest.name;
  }
  get kind(): Kind {
    return this.manifest.kind;
  }
  /** Its POST route; none for a handshake (reached through the configured connections). */
  get route(): string | undefined {
    const prefix = KINDS[this.kind].route;
    return prefix === null ? undefined : `/v1/${prefix}/${this.name}`;
  }
  /** Work per character for a validated config (see Manifest.cost); 1 when the manifest does not say. */
  cost(config: Static<TObject>): number {
    const cost = this.manifest.cost?.(config) ?? 1;
    return Number.isFinite(cost) && cost > 0 ? cost : 1;
  }

  /** Packages of its extras that are not installed (probed on each call: cheap, and installs happen). */
  get missing(): string[] {
    return missingPackages(this.manifest.extras);
  }

  /**
   * An implementation for a validated config, built once per distinct config and shared by
   * requests; implementations are immutable, so sharing never races.
   */
  instance(config: Static<TObject>): Promise<ChunkerImpl | RefineryImpl | ChefImpl> {
    const key = this.keyOf(config);
    let inst = this.instances.get(key);
    if (inst && key === this.newest) return inst; // already the most recent: the usual case, a server of one config
    if (inst) {
      this.instances.delete(key); // refresh LRU position
    } else {
      inst = this.build(config);
      inst.catch(() => this.instances.delete(key));
      if (this.instances.size >= INSTANCE_CACHE_SIZE) this.instances.delete(this.instances.keys().next().value!);
    }
    this.instances.set(key, inst);
    this.newest = key;
    this.newestBuilt = undefined;
    inst.then(
      (built) => {
        if (this.newest === key) this.newestBuilt = built;
      },
      () => {},
    );
    return inst;
  }

  /**
   * The implementation for a validated config when it is the one last asked for and is built
   * (undefined otherwise: ask instance()): a request awaits nothing for it, the usual case of a
   * server used with one config.
   */
  builtInstance(config: Static<TObject>): ChunkerImpl | RefineryImpl | ChefImpl | undefined {
    if (this.newestBuilt === undefined) return undefined;
    return this.keyOf(config) === this.newest ? this.newestBuilt : undefined;
  }

  /** A config's key: the last one's when every value is the same (each request's config is a new object, mostly of the same values). */
  private keyOf(config: Static<TObject>): string {
    const last = this.lastConfig as Record<string, unknown> | undefined;
    if (config === last) return this.lastKey;
    if (last !== undefined) {
      let same = true;
      for (let i = 0; i < this.configKeys.length && same; i++) {
        const v = config[this.configKeys[i]!];
        same = v === last[this.configKeys[i]!] && (v === null || typeof v !== 'object');
      }
      if (same) return this.lastKey;
    }
    return this.configKey(config);
  }

  /** A config's cache key: each value as JSON (a number, boolean or null as its own text, undefined as `undefined`), in key order. */
  private configKey(config: Static<TObject>): string {
    let key = '';
    for (const k of this.configKeys) {
      const v = config[k];
      key += (typeof v === 'number' || typeof v === 'boolean' || v == null ? String(v) : JSON.stringify(v)) + ',';
    }
    this.lastConfig = config;
    this.lastKey = key;
    return key;
  }

  private async build(config: Static<TObject>): Promise<ChunkerImpl | RefineryImpl | ChefImpl> {
    if (this.kind === 'handshake') throw new Error(`The handshake '${this.name}' is opened with connect(), once per connection.`);
    const missing = this.missing;
    if (missing.length) throw missingExtra(this, missing);
    const mod = await this.manifest.load();
    return mod.create(config) as ChunkerImpl | RefineryImpl | ChefImpl;
  }

  /**
   * A handshake's connection for a connection config (validated here: defaults filled in, a bad
   * field a 422 naming it under `loc`). Not cached: each configured connection is opened once by
   * its owner, which closes it.
   */
  async connect(config: Record<string, unknown>, loc: (string | number)[] = ['connection']): Promise<HandshakeImpl> {
    if (this.kind !== 'handshake') throw new Error(`The ${this.kind} '${this.name}' is not a handshake.`);
    const checked = this.validateConfig(structuredClone(config), loc);
    const missing = this.missing;
    if (missing.length) throw missingExtra(this, missing);
    const mod = await this.manifest.load();
    return (await mod.create(checked)) as HandshakeImpl;
  }
}

/** The kinds whose plugins each have a POST route (every kind but handshake). */
export type RoutedKind = Exclude<Kind, 'handshake'>;
export type RoutedPlugin = Plugin & { readonly route: string };

const missingExtra = (plugin: Plugin, packages: string[]) => missingExtraError(`The ${plugin.kind} '${plugin.name}'`, packages);

/** Plugins by kind and name; frozen once discovery is done, so everything derived from it is stable. */
export class Registry {
  private readonly plugins = new Map<string, Plugin>();
  private frozen = false;

  register(manifest: AnyManifest, source: string): Plugin {
    if (this.frozen) throw new Error('The plugin registry is frozen; plugins register during discovery only.');
    const key = `${manifest.kind}:${manifest.name}`;
    const existing = this.plugins.get(key);
    if (existing) throw new Error(`Two ${manifest.kind} plugins are named '${manifest.name}': ${existing.source} and ${source}. Rename one.`);
    const plugin = new Plugin(manifest, source);
    this.plugins.set(key, plugin);
    return plugin;
  }

  freeze(): this {
    this.frozen = true;
    Object.freeze(this);
    return this;
  }

  list(kind: RoutedKind): RoutedPlugin[];
  list(kind?: Kind): Plugin[];
  list(kind?: Kind): Plugin[] {
    return [...this.plugins.values()].filter((p) => !kind || p.kind === kind);
  }

  /** Every plugin that has a POST route of its own (all but handshakes). */
  routed(): RoutedPlugin[] {
    return this.list().filter((p): p is RoutedPlugin => p.route !== undefined);
  }

  find(kind: Kind, name: string): Plugin | undefined {
    return this.plugins.get(`${kind}:${name}`);
  }

  /** A plugin, or a 404 whose message suggests the closest name. */
  get(kind: Kind, name: string): Plugin {
    const plugin = this.find(kind, name);
    if (!plugin) throw new ChunkdError('NOT_FOUND', this.unknownMessage(kind, name));
    return plugin;
  }

  /** What to say of a name no plugin of this kind has: the closest names, or that there are none. */
  unknownMessage(kind: Kind, name: string): string {
    const known = this.list(kind).map((p) => p.name);
    return known.length
      ? unknownNameMessage(kind, name, known)
      : `Unknown ${kind} '${name}': this server has no ${kind} plugins (GET /v1/plugins lists what it has).`;
  }
}
