/**
 * Sends one large chunk request from its own process, so the process polling /health does not also
 * build a 10 MB body and read a 12 MB answer (its own garbage collection would be timed as the
 * server's latency). argv: url, bytes of prose, config JSON. Says 'ready' once the body is built,
 * posts on 'go', answers { status }.
 */
import { prose } from '../corpora.js';

const [url, bytes, config] = process.argv.slice(2) as [string, string, string];
const body = JSON.stringify({ text: prose(Number(bytes)), ...(JSON.parse(config) as object) });
process.on('message', (m: string) => {
  if (m !== 'go') return;
  void fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    .then(async (r) => (await r.arrayBuffer(), r.status))
    .then(
      (status) => process.send!({ status }),
      () => process.send!({ status: 0 }),
    )
    .finally(() => process.disconnect());
});
process.send!('ready');
