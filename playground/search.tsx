import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { call, callWithHeaders, type StoreHit, type StoreInfo } from './api.js';
import { SpansView } from './results.js';

/** A file's id, as POST /v1/files answers it: its extracted text is GET /v1/files/{id}/text. */
const FILE_ID = /^file_[0-9a-f]{32}$/;

/** SHA-256 (hex) of a text: a store's document id for a text written without one. Undefined where the browser has no WebCrypto (plain http off localhost). */
export async function digestOf(text: string): Promise<string | undefined> {
  if (!globalThis.crypto?.subtle) return undefined;
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Whether `text` is the document a hit was cut from: its offsets (code points) give back its text. */
const holds = (text: string, hit: StoreHit) => [...text].slice(hit.start_index, hit.end_index).join('') === hit.text;

interface Props {
  /** Texts this page wrote to a store, by document id; `version` changes when one is added (collections may have grown). */
  written: ReadonlyMap<string, string>;
  version: number;
  /** Another view of the page is shown. */
  hidden: boolean;
}

/** The keys of a hit's metadata that chunkd writes itself; every other key is the user's, shown under the hit. */
const OWN_KEYS = new Set(['document', 'name']);

/** A metadata value as shown: strings as they are, anything else as JSON. */
const shown = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** A filter as the search route takes it (docs/from-a-folder-to-answers.md). */
const FILTER_EXAMPLE = '{"metadata": {"team": "docs", "lang": {"in": ["en", "fr"]}}}';

/** Search a store's collection; each hit is drawn as a span of its document when the page knows that document's text. */
export function SearchPanel({ written, version, hidden }: Props) {
  const [stores, setStores] = useState<StoreInfo[]>([]);
  const [store, setStore] = useState('');
  const [collection, setCollection] = useState('');
  const [query, setQuery] = useState('');
  const [k, setK] = useState('5');
  /** The API's `filter`, as JSON; '' for none. */
  const [filter, setFilter] = useState('');
  /** '' : the collection's default mode. */
  const [mode, setMode] = useState('');
  const [ran, setRan] = useState('');
  const [hits, setHits] = useState<{ hit: StoreHit; text?: string }[] | undefined>();
  const results = useRef<HTMLDivElement>(null);
  // A search's answer is scrolled into view, wherever the form left the page: in the commit that
  // shows it (a layout effect), so the page never shows it unscrolled, even for a frame.
  useLayoutEffect(() => {
    if (hits) results.current?.scrollIntoView({ block: 'start' });
  }, [hits]);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function load() {
    try {
      const list = await call<StoreInfo[]>('GET', '/v1/stores');
      setStores(list);
      const s = list.find((x) => x.name === store) ?? list[0];
      setStore(s?.name ?? '');
      if (!s?.collections.some((c) => c.name === collection)) setCollection(s?.collections[0]?.name ?? '');
    } catch (e) {
      setError(`The stores could not be listed: ${(e as Error).message}`);
    }
  }
  useEffect(() => void load(), [version]);

  /** The document's text: written by this page, or an uploaded file's extracted text; kept only if the hit's offsets give back its text. */
  async function textOf(hit: StoreHit, files: Map<string, Promise<string | undefined>>): Promise<string | undefined> {
    const id = hit.metadata.document;
    let text = written.get(id);
    if (text === undefined && FILE_ID.test(id)) {
      if (!files.has(id))
        files.set(
          id,
          call<{ text: string }>('GET', `/v1/files/${encodeURIComponent(id)}/text`).then(
            (f) => f.text,
            () => undefined,
          ),
        );
      text = await files.get(id);
    }
    return text !== undefined && holds(text, hit) ? text : undefined;
  }

  async function search(e: Event) {
    e.preventDefault();
    const n = Number(k);
    if (!Number.isInteger(n) || n < 1) return setError('k must be a whole number of hits, 1 or more.');
    if (!store || !collection) return setError('Choose a store and a collection (a pipeline ending in a write step fills one).');
    let where: unknown;
    if (filter.trim()) {
      try {
        where = JSON.parse(filter);
      } catch {
        return setError(`The filter must be JSON, e.g. ${FILTER_EXAMPLE}, or left empty.`);
      }
    }
    setBusy(true);
    setError('');
    try {
      const { body: found, headers } = await callWithHeaders<StoreHit[]>('POST', `/v1/stores/${encodeURIComponent(store)}/search`, {
        collection,
        query,
        k: n,
        ...(mode ? { mode } : {}),
        ...(where === undefined ? {} : { filter: where }),
      });
      const files = new Map<string, Promise<string | undefined>>();
      const drawn = await Promise.all(found.map(async (hit) => ({ hit, text: await textOf(hit, files) })));
      // The mode that ran and its hits are shown in one render: never a mode beside the previous search's hits.
      setRan(headers.get('x-chunkd-search-mode') ?? '');
      setHits(drawn);
    } catch (err) {
      setHits(undefined);
      setError(`The search failed: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  }

  const current = stores.find((s) => s.name === store);
  const chosen = current?.collections.find((c) => c.name === collection);
  return (
    <section class="search" aria-labelledby="search-h" hidden={hidden}>
      <h2 id="search-h">Search a store</h2>
      <form onSubmit={(e) => void search(e)}>
        <div class="search-fields">
          <div>
            <label for="search-store">Store</label>
            <select id="search-store" value={store} onChange={(e) => setStore((e.currentTarget as HTMLSelectElement).value)}>
              {stores.map((s) => (
                <option key={s.name} value={s.name}>
                  {s.name} ({s.handshake})
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="search-collection">Collection</label>
            <select id="search-collection" value={collection} onChange={(e) => setCollection((e.currentTarget as HTMLSelectElement).value)}>
              {(current?.collections ?? []).map((c) => (
                <option key={c.name} value={c.name}>
                  {c.name} — {c.count} chunks
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="search-mode">Mode</label>
            <select id="search-mode" value={mode} onChange={(e) => setMode((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">default{chosen?.default_mode ? ` (${chosen.default_mode})` : ''}</option>
              {(current?.modes ?? []).map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="search-k">k</label>
            <input id="search-k" type="number" min={1} step={1} value={k} onInput={(e) => setK((e.currentTarget as HTMLInputElement).value)} />
          </div>
        </div>
        {current?.error ? <p class="error">{current.error}</p> : null}
        <label for="search-query">Query</label>
        <input id="search-query" type="text" value={query} onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)} />
        <label for="search-filter">Filter (JSON, optional: the document, and metadata equal to a value or in a list)</label>
        <input
          id="search-filter"
          type="text"
          placeholder={FILTER_EXAMPLE}
          value={filter}
          onInput={(e) => setFilter((e.currentTarget as HTMLInputElement).value)}
        />
        <div class="actions">
          <button type="submit" id="search" class="primary" disabled={busy}>
            {busy ? 'Searching…' : 'Search'}
          </button>
          <button type="button" onClick={() => void load()}>
            Refresh the stores
          </button>
        </div>
      </form>
      {error ? (
        <p id="search-message" class="banner error" role="alert">
          {error}
        </p>
      ) : null}
      <div ref={results} id="search-results">
        {hits ? (
          <p class="muted" id="search-ran" role="status">
            {hits.length} {hits.length === 1 ? 'hit' : 'hits'}
            {ran ? ` · searched in the ${ran} mode` : ''}
          </p>
        ) : null}
        {hits?.length ? (
          <ol class="hits" aria-label="Hits, best first">
            {hits.map(({ hit, text }, i) => {
              const user = Object.entries(hit.metadata).filter(([key]) => !OWN_KEYS.has(key));
              return (
                <li key={hit.id + i} class="hit">
                  <p class="meta">
                    #{i + 1} · score <strong class="score">{hit.score.toFixed(4)}</strong> ·{' '}
                    <span class="document" title={`document ${hit.metadata.document}`}>
                      {hit.metadata.name ?? hit.metadata.document}
                    </span>{' '}
                    · [{hit.start_index}, {hit.end_index}) · {hit.token_count} tokens
                  </p>
                  {user.length ? (
                    <dl class="hit-metadata" aria-label="Metadata">
                      {user.map(([key, value]) => (
                        <div key={key}>
                          <dt>{key}</dt>
                          <dd>{shown(value)}</dd>
                        </div>
                      ))}
                    </dl>
                  ) : null}
                  {/* Known document: the hit is a coloured span of it; otherwise only the hit's own text. */}
                  {text !== undefined ? (
                    <SpansView text={text} chunks={[hit]} selected={undefined} onSelect={() => undefined} />
                  ) : (
                    <pre class="chunk-text hit-text">{hit.text}</pre>
                  )}
                </li>
              );
            })}
          </ol>
        ) : null}
      </div>
    </section>
  );
}
