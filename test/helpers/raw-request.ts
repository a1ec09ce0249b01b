import { connect } from 'node:net';

/** One request over a raw socket, its body sent only in part: the answer's head and body as text, once the server closes. */
export function rawRequest(url: string, requestLine: string, headers: Record<string, string>, partialBody: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const head = Object.entries({ host: `${hostname}:${port}`, ...headers })
        .map(([k, v]) => `${k}: ${v}`)
        .join('\r\n');
      socket.write(`${requestLine}\r\n${head}\r\n\r\n${partialBody}`);
    });
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (answer += d));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    // A server that keeps the connection open to drain the body never closes it: give up, and let the assertions say so.
    socket.setTimeout(10_000, () => socket.destroy());
  });
}
