// What a key or a member may do, as an integrator's app (and the merchant console) offers it: every
// permission and role the contract names, what each role holds, and each said in words for the person
// who chooses one. The types come from openapi.yaml, so a permission or role the contract drops or
// adds fails to compile here; `test/unit/client-permissions.test.ts` holds the role table to the
// service's own.
import type { components } from '../generated/openapi.js';

export type Permission = components['schemas']['Permission'];
export type Role = components['schemas']['Member']['role'];

/** What a key or role may be given, each said for someone choosing it. */
export const PERMISSION_DESCRIPTIONS = {
  'payment_links:read': 'See payment links',
  'payment_links:write': 'Create, change, resend and cancel payment links',
  'open_payment_links:read': 'See open payment links',
  'open_payment_links:write': 'Create, change and pause open payment links',
  'tokenizations:read': 'See saved cards',
  'tokenizations:write': 'Ask payers to save a card, and remove saved cards',
  'charges:write': 'Charge saved cards',
  'payments:read': 'See payments and the overview',
  'refunds:write': 'Refund payments',
  'exports:read': 'Download payments as CSV',
  'events:read': 'See events',
  'events:write': 'Resend events to webhooks',
  'webhooks:read': 'See webhook endpoints',
  'webhooks:write': 'Add, change and remove webhook endpoints',
  'api_keys:read': 'See API keys',
  'api_keys:write': 'Create and revoke API keys',
  'team:read': 'See the team',
  'team:write': 'Invite, change and remove members',
  'settings:read': 'See the business settings',
  'settings:write': 'Change the business settings and acquirer',
  'audit:read': 'Read the audit log',
  'payouts:read': 'See the balance and payouts',
  'payouts:write': 'Run test payouts',
  'bank_statements:write': 'Upload bank statements to reconcile payouts',
} as const satisfies Record<Permission, string>;

/** Every permission, in the contract's order. */
export const PERMISSIONS = Object.keys(PERMISSION_DESCRIPTIONS) as Permission[];

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && Object.hasOwn(PERMISSION_DESCRIPTIONS, value);
}

/** Each role in a sentence, with its name as people read it. */
export const ROLE_DESCRIPTIONS = {
  owner: { name: 'Owner', description: 'Everything, including making and removing other owners.' },
  admin: { name: 'Admin', description: 'Everything except making or removing owners.' },
  developer: { name: 'Developer', description: 'Builds the integration: links, keys, webhooks and events; reads records but moves no money.' },
  finance: { name: 'Finance', description: 'Reads everything, refunds, charges saved cards, exports, and reconciles payouts.' },
  support: { name: 'Support', description: 'Serves payers: payment links, resending, refunds; no exports, keys or settings changes.' },
  viewer: { name: 'Viewer', description: "Reads the business's payments, links and settings; changes nothing." },
} as const satisfies Record<Role, { name: string; description: string }>;

/** Every role, from the most to the least power. */
export const ROLES = Object.keys(ROLE_DESCRIPTIONS) as Role[];

const READS = PERMISSIONS.filter((permission) => permission.endsWith(':read'));

/** What each role holds: the service's table (`docs/security.md`), which decides. */
export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  owner: PERMISSIONS,
  admin: PERMISSIONS,
  developer: [
    ...READS.filter((permission) => permission !== 'audit:read' && permission !== 'payouts:read'),
    'payment_links:write',
    'open_payment_links:write',
    'tokenizations:write',
    'events:write',
    'webhooks:write',
    'api_keys:write',
  ],
  finance: [...READS, 'refunds:write', 'charges:write', 'payouts:write', 'bank_statements:write'],
  support: [
    'payment_links:read',
    'payment_links:write',
    'open_payment_links:read',
    'tokenizations:read',
    'payments:read',
    'refunds:write',
    'events:read',
    'events:write',
    'team:read',
    'settings:read',
  ],
  viewer: [
    'payment_links:read',
    'open_payment_links:read',
    'tokenizations:read',
    'payments:read',
    'events:read',
    'webhooks:read',
    'team:read',
    'settings:read',
  ],
};
