/** The HTTP floor: raw node:http that parses a JSON body and answers it back, nothing else. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const server = createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (d: Buffer) => parts.push(d));
  req.on('end', () => {
    const body = JSON.stringify(JSON.parse(Buffer.concat(parts).toString('utf8') || 'null'));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
process.on('disconnect', () => process.exit(0));
