// What a caller may do: permissions per resource and action, and the fixed roles a business gives its
// members. Every operation in openapi.yaml names the one permission it needs (`x-permission`); a full
// API key holds them all, a restricted key the ones it was made with, a member those of their role.

export const PERMISSIONS = [
  'payment_links:read',
  'payment_links:write',
  'open_payment_links:read',
  'open_payment_links:write',
  'tokenizations:read',
  'tokenizations:write',
  'charges:write',
  'payments:read',
  'refunds:write',
  'exports:read',
  'events:read',
  'events:write',
  'webhooks:read',
  'webhooks:write',
  'api_keys:read',
  'api_keys:write',
  'team:read',
  'team:write',
  'settings:read',
  'settings:write',
  'audit:read',
  'payouts:read',
  'payouts:write',
  'bank_statements:write',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

/**
 * What an operation may declare instead of a permission: `authenticated` for what any signed-in caller
 * may do to their own account (who am I, sign out), `public` for what needs no caller (sign in).
 */
export const OPEN_ACCESS = ['authenticated', 'public'] as const;
export type OperationAccess = Permission | (typeof OPEN_ACCESS)[number];

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value);
}

export function isOperationAccess(value: unknown): value is OperationAccess {
  return isPermission(value) || (typeof value === 'string' && (OPEN_ACCESS as readonly string[]).includes(value));
}

export const ROLES = ['owner', 'admin', 'developer', 'finance', 'support', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

const READS = PERMISSIONS.filter((permission) => permission.endsWith(':read'));

/**
 * The roles, as a table a non-technical owner can read. Owners and admins may do everything; only an
 * owner makes or removes owners (a rule of the team use case, not a permission). Developers build
 * the integration but move no money; finance moves money, reads everything and reconciles payouts (balances, payouts and bank statements are theirs and the owners' and admins'); support serves
 * payers (links, resending, refunds) without exports or keys; viewers read the business's records.
 */
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

export function permissionsOf(role: Role): ReadonlySet<Permission> {
  return new Set(ROLE_PERMISSIONS[role]);
}
