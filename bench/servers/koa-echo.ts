/**
 * The framework floor: a bare Koa app with koa-bodyparser (chunkd's settings) that answers the
 * parsed JSON body back, nothing else; what any Koa server pays per request before doing any work.
 */
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import type { AddressInfo } from 'node:net';

const app = new Koa();
app.use(bodyParser({ enableTypes: ['json'], detectJSON: () => true, strict: true }));
app.use((ctx) => {
  ctx.body = ctx.request.body;
});
const server = app.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
server.keepAliveTimeout = 60_000;
process.on('disconnect', () => process.exit(0));
