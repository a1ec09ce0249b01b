import type { Registry } from '../kernel/registry.js';
import type { Executor } from '../kernel/engine/index.js';
import type { Logger } from './logger.js';
import type { Services } from './services.js';
import type { Settings } from './settings.js';

/** What the services, the routes and the CLI are given: the frozen registry and everything built at start-up. */
export interface AppDeps {
  registry: Registry;
  settings: Settings;
  logger: Logger;
  /** Runs plugin work: inline for small inputs, in the worker pool for large ones. */
  executor: Executor;
  /** Set while the server shuts down: new requests get 503. */
  draining?: boolean;
  /** The services, each under its noun (service/services.ts). */
  services: Services;
}

/** A long-lived resource opened at start-up and closed at shutdown, offered under `name` in AppDeps.services. */
export interface Service<K extends keyof Services = keyof Services> {
  name: K;
  value: Services[K];
  close(): Promise<void>;
  /** Called once the deps exist (the worker pool among them): e.g. job consumers start here. */
  start?(deps: AppDeps): void;
}

/**
 * Opens a Service (e.g. the pipeline store). Declared here, below the assembly
 * (service/assembly.ts), so a store's module never imports the module that lists it. A factory
 * sees the services opened before it (e.g. the PostgreSQL pool), and is closed before them.
 */
export type ServiceFactory<K extends keyof Services = keyof Services> = (
  settings: Settings,
  logger: Logger,
  services: Readonly<Partial<Services>>,
) => Promise<Service<K>>;
