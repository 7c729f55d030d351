// The ceiling for this stack on this machine: bare Koa that parses the same JSON body with the same
// body parser and answers the same envelopes the service answered (captured by the bench), with no
// routing library, validation, authentication or database.
import { readFileSync } from 'node:fs';
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';

const bodies = JSON.parse(readFileSync(process.env.CEILING_BODIES!, 'utf8')) as { create: unknown; get: unknown; list: unknown };
const app = new Koa();
app.use(bodyParser({ enableTypes: ['json'], jsonLimit: '1mb' }));
app.use(async (ctx) => {
  if (ctx.method === 'POST' && ctx.path === '/api/payment-links') {
    if (typeof ctx.request.body !== 'object') ctx.throw(400);
    ctx.body = bodies.create;
  } else if (ctx.method === 'GET' && ctx.path === '/api/payment-links') {
    ctx.body = bodies.list;
  } else if (ctx.method === 'GET' && ctx.path.startsWith('/api/payment-links/')) {
    ctx.body = bodies.get;
  } else if (ctx.path === '/health') {
    ctx.body = { status: 'ok' };
  } else {
    ctx.status = 404;
  }
});
app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening on ceiling'));
