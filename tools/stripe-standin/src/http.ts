// How every surface of the stand-in answers over Koa: JSON as Stripe writes it, HTML pages with the
// headers a hosted page needs, and the form a page or a control button posted.
import type Koa from 'koa';

export function sendJson(ctx: Koa.Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = 'application/json';
  // Stripe answers pretty-printed JSON.
  ctx.body = JSON.stringify(body, null, 2);
}

export function sendHtml(ctx: Koa.Context, status: number, page: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'");
  ctx.body = page;
}

/** The request's body as the form-body parser kept it, unparsed. */
export function rawBodyOf(ctx: Koa.Context): string {
  return (ctx.request as unknown as { rawBody?: string }).rawBody ?? '';
}

export function formOf(ctx: Koa.Context): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(rawBodyOf(ctx)));
}
