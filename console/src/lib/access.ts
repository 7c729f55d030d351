// Which pages a member may open, decided from the session alone (GET /api/auth/me's role, permissions
// and two_factor_setup_required) before any page asks the API: a page the role may not use says so at
// once, by name, instead of a spinner followed by the API's 403 in a developer's words.
import { ROLE_DESCRIPTIONS, type Permission, type Role } from '@payment-collection/client';

export interface Page {
  /** The page's name as the navigation says it. */
  title: string;
  /** The permission the page's first request needs. */
  permission: Permission;
  /** What the role cannot do, after "cannot": "see Payouts". */
  action: string;
}

const see = (title: string, permission: Permission): Page => ({ title, permission, action: `see ${title}` });

export const PAGES = {
  overview: see('Overview', 'payments:read'),
  payments: see('Payments', 'payments:read'),
  payouts: see('Payouts', 'payouts:read'),
  newBankStatement: { title: 'Upload a bank statement', permission: 'bank_statements:write', action: 'upload bank statements' },
  paymentLinks: see('Payment links', 'payment_links:read'),
  newPaymentLink: { title: 'New payment link', permission: 'payment_links:write', action: 'create payment links' },
  openLinks: see('Open payment links', 'open_payment_links:read'),
  newOpenLink: { title: 'New open payment link', permission: 'open_payment_links:write', action: 'create open payment links' },
  savedCards: see('Saved cards', 'tokenizations:read'),
  apiKeys: see('API keys', 'api_keys:read'),
  webhooks: see('Webhooks', 'webhooks:read'),
  events: see('Events', 'events:read'),
  team: see('Team', 'team:read'),
  settings: see('Settings', 'settings:read'),
  auditLog: see('Audit log', 'audit:read'),
} as const satisfies Record<string, Page>;

/** A route's `handle`: the page it shows, or `account` for the member's own pages (open to every member). */
export type PageHandle = { page: Page } | { account: true };

export function isPageHandle(handle: unknown): handle is PageHandle {
  return typeof handle === 'object' && handle !== null && ('page' in handle || 'account' in handle);
}

export interface Session {
  role: Role;
  permissions: readonly string[];
  two_factor_setup_required: boolean;
}

export type Access =
  | { kind: 'open' }
  /** The business requires two-factor sign-in and the member has not set it up: nothing else opens until they do. */
  | { kind: 'set-up-two-factor' }
  | { kind: 'refused'; message: string };

/** Whether the member may open the page the route shows (a route without a handle, such as "not found", is open). */
export function accessTo(session: Session, handle: PageHandle | undefined): Access {
  if (handle === undefined || 'account' in handle) return { kind: 'open' };
  if (session.two_factor_setup_required) return { kind: 'set-up-two-factor' };
  if (session.permissions.includes(handle.page.permission)) return { kind: 'open' };
  return { kind: 'refused', message: `Your role, ${ROLE_DESCRIPTIONS[session.role].name}, cannot ${handle.page.action}.` };
}
