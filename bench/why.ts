/**
 * What profiling (node --cpu-prof) found behind each target, keyed by the target's text: shown in
 * results.md beside the verdict the run measured (`met` or `missed`, whichever it was).
 */
const SHARED = 'The machine is 2 cores shared with other jobs: a busy neighbour during one row moves its figure; ratios are paired per round to damp that, not to remove it.';

export const WHY: Record<string, { met?: string; missed?: string }> = {
  'token (cl100k_base) ≥ 0.9× raw tiktoken encode': {
    met: 'Encode once, cut windows by offset: beyond the encode, mapping token ends to UTF-16 offsets and building the chunks is ~5% of the time.',
    missed: `Floor-bound: the profile puts ~95% of the time in tiktoken's WASM encode, ~5% in the offset mapping and chunk building; a miss by a few percent is within the noise of this machine. ${SHARED}`,
  },
  'token (cl100k_base) ≥ 2× LangChain.js TokenTextSplitter': {
    met: 'LangChain.js encodes with js-tiktoken (pure JS); chunkd with the WASM tiktoken. Handed the same WASM encoder (the row below it), LangChain is as fast as chunkd: both are encode-bound, so no chunker can be 2× another on one encoder.',
    missed: 'Both are bound by the encoder: see the LangChain row given the WASM encoder, which is as fast as chunkd. Against js-tiktoken, the WASM encoder is the difference.',
  },
  'token (cl100k_base) ≥ 2× chonkiejs TokenChunker': {
    met: 'chonkiejs maps every window back to text by re-joining the characters before it (quadratic in the text length) and decodes each window.',
  },
  'recursive (character) ≥ 100 MB/s': {
    met: 'After the kernel fixes in this branch (code-point offsets from one regex scan of surrogate pairs, one-shot SHA-256 ids, chunks built in wire order), the kernel no longer dominates.',
    missed:
      'Profile (1 MB of prose, ~10 ms per run): the plugin is ~35% (sentence splitting regexes, merging), the kernel ~65%: SHA-256 chunk ids ~30% (one per chunk, ~1.2 µs each), offset conversion ~10%, the rest building chunk objects and GC. The kernel part was ~80% (21 ms per run) before this branch; the remaining gap is the id hash: a cheaper deterministic id (a non-cryptographic 96-bit hash) would change every id on the wire, a decision for the lead.',
  },
  'recursive (character) ≥ 2× LangChain.js RecursiveCharacterTextSplitter': {
    missed: 'See the 100 MB/s row: the chunk ids and offsets the kernel adds per chunk are what LangChain does not do (it returns bare strings).',
  },
  'recursive (cl100k_base) ≥ 0.8× raw tiktoken encode': { met: 'One encoding of the whole text, spans counted by offset (spanCounter).', missed: `Encode-bound; ${SHARED}` },
  'sentence (character) ≥ 2× chonkiejs SentenceChunker': {
    missed:
      "chonkiejs splits and merges in WASM (@chonkiejs/chunk, Rust) and builds no ids; with the character tokenizer it needs ~4 ms per MB. chunkd's profile (1 MB, ~11 ms per run): plugin ~45% (sentence/split.ts: the delimiter regex and the piece loop ~20%, the character span counter's surrogate-pair scan ~8%, packing), kernel ~55% (SHA-256 ids ~30%, offset conversion ~12%). Suggested: a single pass in split.ts that finds delimiters with indexOf per delimiter instead of a regex alternation, reuse of the kernel's surrogate-pair scan for counting, and a cheaper id scheme (lead's decision). Even with the kernel at zero the plugin alone is slower than chonkiejs' WASM.",
  },
  'sentence (cl100k_base) ≥ 2× chonkiejs SentenceChunker': {
    missed: 'Both encode the whole text once with the same WASM encoder and are bound by it (chunkd re-encodes no sentence). A 2× lead over a peer on the same encoder is not possible when the encode is most of the time.',
  },
  'code ≥ 0.5× tree-sitter parse': { met: 'One parse and one encoding per file; cutting the tree is a small share.', missed: `Parse-bound; ${SHARED}` },
  'HTTP small request ≥ 0.5× raw echo req/s': {
    missed:
      "Profile of the server under load: Node's HTTP parsing and socket writes are the largest share (writev alone ~24%); koa-compose's dispatch ~14% inclusive (chunkd's handler inside it ~9%: validation, chunking, SHA-256 ids), koa-bodyparser ~8%, then the per-request middleware (request log line, deadline AbortController and timer, CORS, router). A bare Koa app with koa-bodyparser echoing the same JSON measured ~0.9× the raw echo in quiet rounds, so the gap is chunkd's middleware and handler, not Koa itself; measured alone, the handler's work is ~30 µs per request. Suggested: a deadline timer only for pooled work, a cheaper id hash, and profiling the middleware chain on a quiet machine (this one ran at load 5–15 while measuring).",
  },
  'batch of 2 large documents: 2 workers ≥ 1.7× 1 worker': {
    met: 'Each document goes to its own worker; the main thread only hands over and collects. (The first runs of this bench found ~1.0×: the batch splitter put two near-equal documents into one task whenever the first was the smaller; fixed in kernel/pool.ts.)',
    missed: `The pool splits the batch into one task per thread (measured 1.9–2.0× on a quiet moment of this machine); with other jobs on the 2 cores, a second worker gets no second core. ${SHARED}`,
  },
  '/health answers in < 50 ms while a 10 MB job runs': {
    met: "The event loop does no work in proportion to the body: a large body (≥ 64 KiB) on a chunk, refine or pipeline-execute route is copied into one buffer as it arrives (server/middleware/raw-body.ts) and moved, not copied, to a worker, which parses it as koa-bodyparser would, validates it with the plugin's compiled schema, checks the limits, chunks, and serializes the answer to the exact JSON bytes (server/pooled/); those bytes are moved back and written as the body. A chunk or refine batch worth splitting is spread over the workers as before, each group's JSON bytes joined in order (a pipeline batch worth splitting is still parsed on the event loop, as before: the max-chunks check between its steps counts the whole batch). Profile of the main thread per 10 MB request: its longest block during the job went from ~210 ms (JSON.stringify, byteLength and GC of the answer) and ~75 ms (JSON.parse of the body) to under 10 ms.",
    missed: `The main thread's longest block during a 10 MB job is under 10 ms in the profile (it was ~210 ms: the answer's JSON.stringify and GC, and ~75 ms: JSON.parse of the body), since a large body is parsed, chunked and serialized in a worker and only buffers are moved. What remains is scheduling: the server's workers fill both cores, so with other jobs on the machine the event loop waits for a core, and the client polling /health is itself a process competing for them. ${SHARED}`,
  },
};
