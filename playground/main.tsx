import { render } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { headingPath } from '../kernel/chef/annotate.js';
import { ApiError, apiKey, call, runBatch, type Issue, type Pipeline, type PluginInfo, type Processed, type Step } from './api.js';
import { ConfigForm, configOf, initialRaw, rawFromConfig, type Raw } from './form.js';
import { ChunkDetails, Histogram, ListView, SpansView } from './results.js';
import { digestOf, SearchPanel } from './search.js';
import type { Chunk } from './spans.js';
import './style.css';

interface Doc {
  name: string;
  text: string;
  chunks?: Chunk[];
  error?: string;
  /** The chef's spans of `text` when a chef ran first (offsets in code points, as the chunks'). */
  structure?: Processed['structure'];
}

interface Result {
  docs: Doc[];
  ms: number;
  /** What ran, for the totals line: a chunker or a pipeline name, then the refineries. */
  label: string;
  chunkSize: number | undefined;
}

type Errors = Record<string, Record<string, string>>;
type Place = 'run' | 'refine' | 'save' | 'export';

const SAMPLE = `# Chunking

Retrieval works on pieces of a document, not the whole of it. A chunker cuts the text into pieces that fit the embedding model and still make sense on their own.

## Why sizes matter

Small chunks match a question precisely but lose their context. Large chunks keep the context but blur the match. Most systems choose something between 256 and 1024 tokens, then look at the chunks.

This page shows them: each chunk is a coloured span over the text, the list below gives every chunk's offsets and tokens, and the histogram shows how the sizes spread against chunk_size.
`;

/** Text-like files are read in the browser; anything else is refused with a reason. */
const TEXT_FILE =
  /\.(txt|md|markdown|rst|py|ts|tsx|js|jsx|mjs|cjs|json|jsonl|ya?ml|toml|ini|cfg|csv|tsv|html?|xml|css|scss|java|go|rs|c|h|cc|cpp|hpp|cs|rb|php|sh|bash|kt|swift|scala|lua|sql|tex|log)$/i;

/** A step as the pipeline lists show it: its plugin, or the store a write step writes to. */
const stepName = (s: Step) => s.chef ?? s.chunker ?? s.refinery ?? (s.store ? `write to ${s.store}` : s.type);

function App() {
  const [plugins, setPlugins] = useState<PluginInfo[]>([]);
  const [pipelines, setPipelines] = useState<Pipeline[]>([]);
  const [loadError, setLoadError] = useState('');
  const [key, setKey] = useState(apiKey.get());
  const [text, setText] = useState(SAMPLE);
  const [files, setFiles] = useState<Doc[]>([]);
  const [source, setSource] = useState('chunker:recursive');
  /** The chef that runs before the chunker ('' for none). */
  const [chef, setChef] = useState('');
  const [raws, setRaws] = useState<Record<string, Raw>>({});
  const [refine, setRefine] = useState<Record<string, boolean>>({});
  const [errors, setErrors] = useState<Errors>({});
  const [message, setMessageAt] = useState<{ kind: 'error' | 'ok'; text: string; at: Place } | undefined>();
  // Each message is shown beside the button whose action it answers.
  const place = useRef<Place>('run');
  const setMessage = (m: { kind: 'error' | 'ok'; text: string } | undefined) => setMessageAt(m && { ...m, at: place.current });
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<{ done: number; total: number } | undefined>();
  const [result, setResult] = useState<Result | undefined>();
  // Two views, chosen at the top of the page (and by the address: #search): chunking, and searching a store.
  const viewOf = () => (location.hash === '#search' ? 'search' : 'chunk');
  const [pageView, setPageView] = useState<'chunk' | 'search'>(viewOf());
  useEffect(() => {
    const onHash = () => setPageView(viewOf());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const output = useRef<HTMLElement>(null);
  // A run's chunks are scrolled into view, wherever its button left the page: in the commit that
  // shows them (a layout effect), so the page never shows them unscrolled, even for a frame.
  useLayoutEffect(() => {
    if (result) output.current?.scrollIntoView({ block: 'start' });
  }, [result]);
  const [docIndex, setDocIndex] = useState(0);
  const [view, setView] = useState<'text' | 'list'>('text');
  const [selected, setSelected] = useState<number | undefined>();
  const [pipelineName, setPipelineName] = useState('');
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  // Stops a running batch: closing the request is what tells a streaming server to stop working.
  const batch = useRef<AbortController | undefined>();
  // Texts this page wrote through a pipeline's write step, by their document id (the text's digest): search draws hits on them.
  const written = useRef(new Map<string, string>());
  const [writes, setWrites] = useState(0);

  const chunkers = plugins.filter((p) => p.kind === 'chunker');
  const refineries = plugins.filter((p) => p.kind === 'refinery');
  // The page sends text: a chef that reads files only (PDF, DOCX) is listed but cannot be chosen.
  const chefs = plugins.filter((p) => p.kind === 'chef');
  // Chunkers and refineries by name (a chef may share a name with a chunker: the table chef and chunker).
  const byName = useMemo(() => new Map(plugins.filter((p) => p.kind === 'chunker' || p.kind === 'refinery').map((p) => [p.name, p])), [plugins]);
  const [sourceKind, sourceName] = source.split(/:(.*)/s) as ['chunker' | 'pipeline', string];
  const chunker = sourceKind === 'chunker' ? byName.get(sourceName) : undefined;
  const pipeline = sourceKind === 'pipeline' ? pipelines.find((p) => p.id === sourceName) : undefined;
  const rawFor = (p: PluginInfo) => raws[p.name] ?? initialRaw(p.config);

  async function load() {
    setLoadError('');
    try {
      // The chunkers work without the pipeline store: a store that fails only hides the pipelines.
      const [ps, pls] = await Promise.all([
        call<PluginInfo[]>('GET', '/v1/plugins'),
        call<Pipeline[]>('GET', '/v1/pipelines?limit=100').catch((e: Error) => e),
      ]);
      setPlugins(ps);
      if (Array.isArray(pls)) setPipelines(pls);
      else setLoadError(`The stored pipelines could not be listed: ${pls.message}`);
      if (!ps.some((p) => `chunker:${p.name}` === source) && ps[0]) setSource(`chunker:${ps.find((p) => p.kind === 'chunker')?.name ?? ''}`);
    } catch (e) {
      setLoadError(
        e instanceof ApiError && e.status === 401 ? `${e.message} Enter the server's API key above.` : `Could not load the plugins: ${(e as Error).message}`,
      );
    }
  }
  useEffect(() => void load(), []);

  function saveKey(e: Event) {
    e.preventDefault();
    apiKey.set(key.trim());
    void load();
  }

  async function readFiles(list: FileList | null) {
    if (!list?.length) return;
    const all = [...list];
    const refused = all.filter((f) => !TEXT_FILE.test(f.name));
    const docs = await Promise.all(all.filter((f) => TEXT_FILE.test(f.name)).map(async (f) => ({ name: f.name, text: await f.text() })));
    setMessage(
      refused.length ? { kind: 'error', text: `Not read (not a text file): ${refused.map((f) => f.name).join(', ')}. Paste their text instead.` } : undefined,
    );
    if (docs.length === 1) {
      setText(docs[0]!.text);
      setFiles([]);
    } else if (docs.length > 1) setFiles(docs);
  }

  /** Settings → the current config of a plugin, with unreadable fields reported at the field. */
  function readConfig(p: PluginInfo, into: Errors): Record<string, unknown> {
    const { config, errors: bad } = configOf(p.config, rawFor(p));
    if (Object.keys(bad).length) into[p.name] = bad;
    return config;
  }

  /** A 422's issues placed at the fields their loc names; the rest becomes the message. */
  function placeIssues(e: unknown, owners: (string | undefined)[], fallback: string): void {
    if (!(e instanceof ApiError)) {
      setMessage({ kind: 'error', text: `${fallback}: ${(e as Error).message}` });
      return;
    }
    if (!Array.isArray(e.detail)) {
      setMessage({ kind: 'error', text: `${fallback}: ${e.message}` });
      return;
    }
    const placed: Errors = {};
    const rest: Issue[] = [];
    for (const issue of e.detail) {
      const [, ...loc] = issue.loc;
      let owner: string | undefined;
      let field: string | undefined;
      if (loc[0] === 'steps' && typeof loc[1] === 'number' && loc[2] === 'config' && typeof loc[3] === 'string') [owner, field] = [owners[loc[1]], loc[3]];
      else if (loc[0] === 'name') [owner, field] = ['pipeline', loc[0]];
      else if (typeof loc[0] === 'string' && owners[0] && loc.length === 1) [owner, field] = [owners[0], loc[0]];
      // Only where the page shows that field; any other issue stays in the message.
      const shown = owner === 'pipeline' ? field === 'name' : field !== undefined && byName.get(owner ?? '')?.config.properties?.[field] !== undefined;
      if (owner && field && shown) (placed[owner] ??= {})[field] = issue.msg;
      else rest.push(issue);
    }
    setErrors(placed);
    const n = e.detail.length - rest.length;
    setMessage({
      kind: 'error',
      text: `${fallback}: ${n ? `${n} problem${n > 1 ? 's' : ''} shown at the fields. ` : ''}${rest.map((i) => `${i.loc.slice(1).join('.')}: ${i.msg}`).join('; ')}`,
    });
  }

  async function run() {
    place.current = 'run';
    const errs: Errors = {};
    const texts = files.length ? files : [{ name: 'text', text }];
    let path: string;
    let body: Record<string, unknown>;
    let label: string;
    let chunkSize: number | undefined;
    const usedChef = chunker ? chefs.find((c) => c.name === chef) : undefined;
    if (chunker) {
      const config = readConfig(chunker, errs);
      path = chunker.route;
      body = { ...config };
      label = usedChef ? `${usedChef.name} → ${chunker.name}` : chunker.name;
      chunkSize = typeof config.chunk_size === 'number' ? config.chunk_size : undefined;
    } else if (pipeline) {
      path = `/v1/pipelines/${encodeURIComponent(pipeline.id)}/execute`;
      body = {};
      label = `pipeline ${pipeline.name}`;
      const size = pipeline.steps.find((s) => s.type === 'chunk')?.config.chunk_size;
      chunkSize = typeof size === 'number' ? size : undefined;
    } else return;
    setErrors(errs);
    if (Object.keys(errs).length) return setMessage({ kind: 'error', text: 'Fix the fields marked in red.' });
    setBusy(true);
    setMessage(undefined);
    setSelected(undefined);
    const started = performance.now();
    try {
      // A chef first: the chunker cuts the processed text, and its structure gives each chunk its heading path.
      let processed: Doc[] | undefined;
      if (usedChef) {
        try {
          processed = await Promise.all(
            texts.map(async (d) => {
              const p = await call<Processed>('POST', usedChef.route, { text: d.text });
              return { name: d.name, text: p.text, structure: p.structure };
            }),
          );
        } catch (e) {
          placeIssues(e, [], `The ${usedChef.name} chef refused the text`);
          return;
        }
      }
      let docs: Doc[];
      if (processed && !files.length) {
        docs = [{ ...processed[0]!, chunks: await call<Chunk[]>('POST', path, { ...body, text: processed[0]!.text }) }];
      } else if (files.length) {
        const inputs = processed ?? texts;
        docs = inputs.map((d) => ({ ...d }));
        setProgress({ done: 0, total: docs.length });
        let done = 0;
        batch.current = new AbortController();
        await runBatch(
          path,
          { ...body, text: inputs.map((d) => d.text) },
          (total) => setProgress({ done: 0, total }),
          (i, r) => {
            if (docs[i]) docs[i] = { ...docs[i]!, ...r };
            setProgress({ done: ++done, total: docs.length });
          },
          batch.current.signal,
        );
      } else {
        docs = [{ name: 'text', text, chunks: await call<Chunk[]>('POST', path, { ...body, text }) }];
      }
      setResult({ docs, ms: performance.now() - started, label, chunkSize });
      setDocIndex(0);
      if (pipeline?.steps.some((s) => s.type === 'write')) {
        for (const d of docs) {
          const id = d.chunks && (await digestOf(d.text));
          if (id) written.current.set(id, d.text);
        }
        setWrites((n) => n + 1);
      }
    } catch (e) {
      if ((e as Error).name === 'AbortError') setMessage({ kind: 'error', text: 'Stopped.' });
      else placeIssues(e, [chunker?.name], 'The chunker refused the request');
    } finally {
      batch.current = undefined;
      setBusy(false);
      setProgress(undefined);
    }
  }

  async function runRefineries() {
    if (!result) return;
    place.current = 'refine';
    const chosen = refineries.filter((r) => refine[r.name]);
    if (!chosen.length) return setMessage({ kind: 'error', text: 'Tick a refinery first.' });
    const errs: Errors = {};
    const configs = chosen.map((r) => readConfig(r, errs));
    setErrors(errs);
    if (Object.keys(errs).length) return setMessage({ kind: 'error', text: 'Fix the fields marked in red.' });
    setBusy(true);
    setMessage(undefined);
    const started = performance.now();
    try {
      const docs = result.docs.map((d) => ({ ...d }));
      const ok = docs.filter((d) => d.chunks);
      let lists = ok.map((d) => d.chunks!);
      for (const [i, r] of chosen.entries()) {
        try {
          lists = await call<Chunk[][]>('POST', r.route, { ...configs[i], chunks: lists });
        } catch (e) {
          placeIssues(e, [r.name], `The ${r.name} refinery refused the request`);
          return;
        }
      }
      ok.forEach((d, i) => (d.chunks = lists[i]));
      setResult({ ...result, docs, ms: result.ms + performance.now() - started, label: `${result.label} → ${chosen.map((r) => r.name).join(' → ')}` });
    } finally {
      setBusy(false);
    }
  }

  async function savePipeline(e: Event) {
    e.preventDefault();
    place.current = 'save';
    if (!chunker) return setMessage({ kind: 'error', text: 'Choose a chunker to save its settings as a pipeline.' });
    const errs: Errors = {};
    const chosen = refineries.filter((r) => refine[r.name]);
    const steps: Step[] = [
      ...(chefs.some((c) => c.name === chef) ? [{ type: 'process', chef, config: {} }] : []),
      { type: 'chunk', chunker: chunker.name, config: readConfig(chunker, errs) },
      ...chosen.map((r) => ({ type: 'refine', refinery: r.name, config: readConfig(r, errs) })),
    ];
    setErrors(errs);
    if (Object.keys(errs).length) return setMessage({ kind: 'error', text: 'Fix the fields marked in red.' });
    setBusy(true);
    try {
      const saved = await call<Pipeline>('POST', '/v1/pipelines', { name: pipelineName, steps });
      setPipelines([saved, ...pipelines.filter((p) => p.id !== saved.id)]);
      setMessage({ kind: 'ok', text: `Saved pipeline “${saved.name}” (${saved.id}).` });
      setErrors({});
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        setErrors({ pipeline: { name: err.message } });
        setMessage({ kind: 'error', text: 'Not saved: see the name field.' });
      } else placeIssues(err, [...(steps[0]!.chef ? [undefined] : []), chunker.name, ...chosen.map((r) => r.name)], 'Not saved');
    } finally {
      setBusy(false);
    }
  }

  function usePipeline(p: Pipeline) {
    setSource(`pipeline:${p.id}`);
  }

  function editPipeline(p: Pipeline) {
    const next = { ...raws };
    const ticks: Record<string, boolean> = {};
    for (const s of p.steps) {
      const plugin = byName.get(s.chunker ?? s.refinery ?? '');
      if (plugin) next[plugin.name] = rawFromConfig(plugin.config, s.config);
      if (s.refinery) ticks[s.refinery] = true;
    }
    setRaws(next);
    setRefine(ticks);
    const chunkStep = p.steps.find((s) => s.chunker);
    if (chunkStep) setSource(`chunker:${chunkStep.chunker}`);
    setChef(p.steps.find((s) => s.type === 'process')?.chef ?? '');
  }

  const doc = result?.docs[docIndex];
  const chunks = doc?.chunks ?? [];
  const shown = selected !== undefined ? chunks[selected] : undefined;
  // The heading path where the shown chunk starts, from the chef's headings (same unit as the chunk's offsets).
  const headings =
    shown && doc?.structure?.headings.length
      ? headingPath(
          doc.structure.headings.map((h) => ({ ...h, start: h.start_index, end: h.end_index })),
          shown.start_index,
        )
      : undefined;
  const json = result
    ? JSON.stringify(result.docs.length === 1 && !files.length ? result.docs[0]!.chunks : result.docs.map((d) => d.chunks ?? { error: d.error }), null, 2)
    : '';
  const totalChunks = result?.docs.reduce((n, d) => n + (d.chunks?.length ?? 0), 0) ?? 0;
  const totalTokens = result?.docs.reduce((n, d) => n + (d.chunks ?? []).reduce((m, c) => m + c.token_count, 0), 0) ?? 0;

  async function copy() {
    place.current = 'export';
    try {
      await navigator.clipboard.writeText(json);
      setMessage({ kind: 'ok', text: 'JSON copied.' });
    } catch {
      setMessage({ kind: 'error', text: 'The browser refused the clipboard: use Download JSON instead.' });
    }
  }

  function download() {
    const url = URL.createObjectURL(new Blob([json], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `chunks-${result?.label.replace(/[^\w.-]+/g, '_') ?? 'result'}.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  const notice = (at: Place) =>
    message?.at === at ? (
      <p id="message" class={`banner ${message.kind}`} role={message.kind === 'error' ? 'alert' : 'status'}>
        {message.text}
      </p>
    ) : null;

  return (
    <>
      <header>
        <h1>chunkd playground</h1>
        <nav aria-label="Views" class="views">
          <a href="#chunk" id="view-chunk" aria-current={pageView === 'chunk' ? 'page' : undefined}>
            Chunk
          </a>
          <a href="#search" id="view-search" aria-current={pageView === 'search' ? 'page' : undefined}>
            Search a store
          </a>
        </nav>
        <nav aria-label="Documentation">
          <a href="#output-h">Skip to the chunks</a> <a href="/docs">API docs</a> <a href="/redoc">Reference</a> <a href="/">Routes</a>
        </nav>
        <form class="key" onSubmit={saveKey}>
          <label for="api-key">API key</label>
          <input
            id="api-key"
            type="password"
            autoComplete="off"
            placeholder="only if the server needs one"
            value={key}
            onInput={(e) => setKey((e.currentTarget as HTMLInputElement).value)}
          />
          <button type="submit">Use key</button>
          <small class="help">Kept in this tab only (sessionStorage), sent as a Bearer token.</small>
        </form>
      </header>
      {loadError ? (
        <p class="banner error" role="alert">
          {loadError}
        </p>
      ) : null}
      <main>
        <section class="input" aria-labelledby="input-h" hidden={pageView !== 'chunk'}>
          <h2 id="input-h">Input</h2>
          <div
            class={`drop${dragging ? ' over' : ''}`}
            onDragOver={(e) => {
              e.preventDefault();
              setDragging(true);
            }}
            onDragLeave={() => setDragging(false)}
            onDrop={(e) => {
              e.preventDefault();
              setDragging(false);
              void readFiles(e.dataTransfer?.files ?? null);
            }}
          >
            {files.length ? (
              <div class="files">
                <p>
                  {files.length} files: {files.map((f) => f.name).join(', ')}
                </p>
                <button type="button" onClick={() => setFiles([])}>
                  Back to the text box
                </button>
              </div>
            ) : (
              <>
                <label for="text">Text</label>
                <textarea id="text" rows={10} value={text} onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)} />
              </>
            )}
            <p class="help">
              Drop text files here (.txt, .md, .py, .ts, …) or{' '}
              <button type="button" class="link" onClick={() => fileInput.current?.click()}>
                choose files
              </button>
              ; several files run as one batch with progress.
            </p>
            <input ref={fileInput} id="files" type="file" multiple hidden onChange={(e) => void readFiles((e.currentTarget as HTMLInputElement).files)} />
          </div>

          <label for="source">Chunker or pipeline</label>
          <select id="source" value={source} onChange={(e) => setSource((e.currentTarget as HTMLSelectElement).value)}>
            <optgroup label="Chunkers">
              {chunkers.map((p) => (
                <option key={p.name} value={`chunker:${p.name}`}>
                  {p.name}
                  {p.available ? '' : ' (missing extra)'}
                </option>
              ))}
            </optgroup>
            {pipelines.length ? (
              <optgroup label="Stored pipelines">
                {pipelines.map((p) => (
                  <option key={p.id} value={`pipeline:${p.id}`}>
                    {p.name}
                  </option>
                ))}
              </optgroup>
            ) : null}
          </select>
          <label for="chef">Process with</label>
          <select
            id="chef"
            value={chef}
            disabled={!chunker}
            aria-describedby="chef-help"
            onChange={(e) => setChef((e.currentTarget as HTMLSelectElement).value)}
          >
            <option value="">none</option>
            {chefs.map((c) => (
              <option key={c.name} value={c.name} disabled={c.reads?.bytes_only === true}>
                {c.name}
                {c.reads?.bytes_only ? ' (files only)' : c.available ? '' : ' (missing extra)'}
              </option>
            ))}
          </select>
          <small id="chef-help" class="help">
            {chunker
              ? 'A chef reads the text first (its headings, tables, code); the chunker then cuts what it made, and each chunk shows its heading path.'
              : 'A stored pipeline runs its own steps.'}
          </small>
          {chunker ? (
            <details class="config" open>
              <summary>
                <strong>{chunker.name}</strong> settings <span class="muted">— {chunker.summary}</span>
              </summary>
              {chunker.missing.length ? <p class="error">Needs: npm install {chunker.missing.join(' ')}</p> : null}
              <ConfigForm
                prefix={`cfg-${chunker.name}`}
                schema={chunker.config}
                raw={rawFor(chunker)}
                errors={errors[chunker.name] ?? {}}
                onChange={(r) => setRaws({ ...raws, [chunker.name]: r })}
              />
            </details>
          ) : pipeline ? (
            <div class="config">
              <p>
                Steps: {pipeline.steps.map(stepName).join(' → ')}{' '}
                <button type="button" class="link" onClick={() => editPipeline(pipeline)}>
                  edit its settings
                </button>
              </p>
              <pre class="steps">{JSON.stringify(pipeline.steps, null, 1)}</pre>
            </div>
          ) : null}
          <div class="actions">
            <button type="button" id="run" class="primary" disabled={busy || (!chunker && !pipeline)} onClick={() => void run()}>
              {busy ? 'Running…' : 'Run'}
            </button>
            {progress ? (
              <span class="progress">
                <progress id="progress" max={progress.total || 1} value={progress.done} aria-label="Documents done" /> {progress.done}/{progress.total}{' '}
                documents{' '}
                <button type="button" onClick={() => batch.current?.abort()}>
                  Stop
                </button>
              </span>
            ) : null}
          </div>
          {notice('run')}

          <h2>Refineries</h2>
          {refineries.map((r) => (
            <div key={r.name} class="refinery">
              <div class="refinery-head">
                <input
                  type="checkbox"
                  id={`use-${r.name}`}
                  checked={refine[r.name] === true}
                  onChange={(e) => setRefine({ ...refine, [r.name]: (e.currentTarget as HTMLInputElement).checked })}
                />
                <label for={`use-${r.name}`}>{r.name}</label>
                <span class="muted">{r.summary}</span>
              </div>
              {refine[r.name] ? (
                <ConfigForm
                  prefix={`cfg-${r.name}`}
                  schema={r.config}
                  raw={rawFor(r)}
                  errors={errors[r.name] ?? {}}
                  onChange={(raw) => setRaws({ ...raws, [r.name]: raw })}
                />
              ) : null}
            </div>
          ))}
          <button type="button" id="refine" disabled={busy || !result} onClick={() => void runRefineries()}>
            Run the ticked refineries on the result
          </button>
          {notice('refine')}

          <h2>Save as a pipeline</h2>
          <form class="save" onSubmit={(e) => void savePipeline(e)}>
            <div class={`field${errors.pipeline?.name ? ' invalid' : ''}`}>
              <label for="pipeline-name">Pipeline name</label>
              <input
                id="pipeline-name"
                type="text"
                value={pipelineName}
                aria-describedby={errors.pipeline?.name ? 'pipeline-name-error' : undefined}
                onInput={(e) => setPipelineName((e.currentTarget as HTMLInputElement).value)}
              />
              {errors.pipeline?.name ? (
                <small id="pipeline-name-error" class="error" role="alert">
                  {errors.pipeline.name}
                </small>
              ) : null}
            </div>
            <button type="submit" id="save" disabled={busy || !chunker}>
              Save the chunker and ticked refineries
            </button>
          </form>
          {notice('save')}
          {pipelines.length ? (
            <>
              <h3>Stored pipelines</h3>
              <ul class="pipelines">
                {pipelines.map((p) => (
                  <li key={p.id}>
                    <button type="button" class="link" onClick={() => usePipeline(p)}>
                      {p.name}
                    </button>{' '}
                    <span class="muted">{p.steps.map(stepName).join(' → ')}</span>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </section>

        <section class="output" aria-labelledby="output-h" ref={output} hidden={pageView !== 'chunk'}>
          <h2 id="output-h">Chunks</h2>
          {result ? (
            <>
              <p class="totals" id="totals" role="status">
                <strong>{totalChunks}</strong> chunks · <strong>{totalTokens}</strong> tokens · <strong>{result.ms.toFixed(0)} ms</strong> · {result.label}
                {result.docs.length > 1 ? ` · ${result.docs.length} documents` : ''}
              </p>
              {result.docs.length > 1 ? (
                <>
                  <label for="doc">Document</label>
                  <select id="doc" value={String(docIndex)} onChange={(e) => setDocIndex(Number((e.currentTarget as HTMLSelectElement).value))}>
                    {result.docs.map((d, i) => (
                      <option key={i} value={String(i)}>
                        {d.name} — {d.chunks ? `${d.chunks.length} chunks` : 'error'}
                      </option>
                    ))}
                  </select>
                </>
              ) : null}
              <div class="toolbar">
                <div role="group" aria-label="View">
                  <button type="button" aria-pressed={view === 'text'} onClick={() => setView('text')}>
                    Text
                  </button>
                  <button type="button" aria-pressed={view === 'list'} onClick={() => setView('list')}>
                    List
                  </button>
                </div>
                <div role="group" aria-label="Export">
                  <button type="button" onClick={() => void copy()}>
                    Copy JSON
                  </button>
                  <button type="button" onClick={download}>
                    Download JSON
                  </button>
                </div>
              </div>
              {notice('export')}
              {doc?.error ? (
                <p class="banner error" role="alert">
                  {doc.name}: {doc.error}
                </p>
              ) : null}
              <Histogram chunks={chunks} chunkSize={result.chunkSize} />
              <ChunkDetails chunk={shown} index={selected} headings={headings} />
              {view === 'text' ? (
                <SpansView text={doc?.text ?? ''} chunks={chunks} selected={selected} onSelect={setSelected} />
              ) : (
                <ListView chunks={chunks} selected={selected} onSelect={setSelected} />
              )}
              <p class="legend muted">
                <span class="seg c0">chunk</span> <span class="seg c1">next chunk</span> <span class="seg c0 overlap">shared by two</span>{' '}
                <span class="seg ctx ctx0">overlap context</span> <span class="seg gap">not in any chunk</span>
              </p>
            </>
          ) : (
            <p class="muted">Choose a chunker, then Run.</p>
          )}
        </section>
        <SearchPanel written={written.current} version={writes} hidden={pageView !== 'search'} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
