import type Koa from 'koa';

/**
 * Headers for every payer page. `form-action` must also allow the merchant's redirect origin:
 * browsers apply it to the redirect that follows a form submission.
 */
export function setPageSecurityHeaders(koa: Koa.Context, redirectOrigins: string[] = []): void {
  const formAction = ["'self'", ...redirectOrigins].join(' ');
  koa.set({
    'Content-Security-Policy': `default-src 'none'; style-src 'self'; img-src 'self' data:; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  });
}

/**
 * A CSP host-source: scheme, DNS name or IP, port. The URL parser lets `;`, `,`, quotes and `*` into a
 * host, and a merchant's redirect_url goes into the header: such a host would add directives or
 * whole policies of the merchant's choosing. It is left out; the form then posts to 'self' only.
 */
const HOST_SOURCE = /^https?:\/\/(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

export function originOf(url: string | null): string[] {
  if (!url) return [];
  try {
    const origin = new URL(url).origin;
    return HOST_SOURCE.test(origin) ? [origin] : [];
  } catch {
    return [];
  }
}
