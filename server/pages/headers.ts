import type Koa from 'koa';

/**
 * Headers for every payer page. `form-action` must also allow the merchant's redirect origin:
 * browsers apply it to the redirect that follows a form submission.
 */
export function setPageSecurityHeaders(ctx: Koa.Context, redirectOrigins: string[] = []): void {
  const formAction = ["'self'", ...redirectOrigins].join(' ');
  ctx.set({
    'Content-Security-Policy': `default-src 'none'; style-src 'self'; img-src 'self' data:; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  });
}

export function originOf(url: string | null): string[] {
  if (!url) return [];
  try {
    return [new URL(url).origin];
  } catch {
    return [];
  }
}
