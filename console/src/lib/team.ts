// What the Team, Settings and Developers views decide without the service: which roles a member may
// hand out (each said in words), the business profile's changed fields, a logo file as the API takes it, and a webhook
// endpoint's events as a form edits them. The server checks each of these again.
import { ROLE_DESCRIPTIONS, ROLES, type Role } from '@payment-collection/client';

export { ROLES, type Role };

/** A role's name as people read it ("Viewer"). */
export function roleName(role: Role): string {
  return ROLE_DESCRIPTIONS[role].name;
}

/** What a role may do, in a sentence, where it is chosen. */
export function roleDescription(role: Role): string {
  return ROLE_DESCRIPTIONS[role].description;
}

/** The roles a member may give (an invitation or a change of role): only an owner makes owners. */
export function assignableRoles(myRole: Role): Role[] {
  return ROLES.filter((role) => role !== 'owner' || myRole === 'owner');
}

/** Whether a member may change or remove another: an owner only by an owner, and never oneself here. */
export function mayManageMember(myRole: Role, myUserId: string, member: { user_id: string; role: Role }): boolean {
  if (member.user_id === myUserId) return false;
  return member.role !== 'owner' || myRole === 'owner';
}

export interface ProfileForm {
  name: string;
  display_name: string;
  brand_color: string;
  support_email: string;
  support_phone: string;
  website_url: string;
  time_zone: string;
  default_locale: 'en' | 'ms' | 'zh';
}

/** The own name cannot be cleared: an emptied one is not sent (the form says it is needed). */
export type ProfileUpdate = { [K in Exclude<keyof ProfileForm, 'name'>]?: ProfileForm[K] | null } & { name?: string };

/** The profile's fields as a form edits them: a field the business never set is empty. */
export function profileForm(profile: {
  display_name: string;
  name: string;
  brand_color: string | null;
  support_email: string | null;
  support_phone: string | null;
  website_url: string | null;
  time_zone: string;
  default_locale: 'en' | 'ms' | 'zh';
}): ProfileForm {
  return {
    name: profile.name,
    display_name: profile.display_name === profile.name ? '' : profile.display_name,
    brand_color: profile.brand_color ?? '',
    support_email: profile.support_email ?? '',
    support_phone: profile.support_phone ?? '',
    website_url: profile.website_url ?? '',
    time_zone: profile.time_zone,
    default_locale: profile.default_locale,
  };
}

/** Only what the form changed, trimmed; an emptied field is null (the API then clears it). */
export function profileChanges(before: ProfileForm, after: ProfileForm): ProfileUpdate {
  const changes: ProfileUpdate = {};
  for (const key of Object.keys(after) as Array<keyof ProfileForm>) {
    const value = after[key].trim();
    if (value === before[key].trim() || (key === 'name' && value === '')) continue;
    (changes as Record<string, string | null>)[key] = value === '' ? null : value;
  }
  return changes;
}

export const LOGO_MAX_BYTES = 256 * 1024;

/** A file's bytes in base64, as PUT /api/business/logo takes them. */
export function base64OfBytes(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Every event a webhook endpoint can ask for, besides `*`. */
export const EVENT_TYPES = [
  'payment.created',
  'payment.failed',
  'refund.succeeded',
  'refund.failed',
  'payment_link.expired',
  'token.activated',
  'token.card_removed',
] as const;

export type EventChoice = '*' | (typeof EVENT_TYPES)[number];

/** The events a form's checkboxes pick: every event (`*`) when it picks all or none of them. */
export function enabledEvents(picked: readonly string[]): EventChoice[] {
  const known = EVENT_TYPES.filter((type) => picked.includes(type));
  return picked.includes('*') || known.length === 0 || known.length === EVENT_TYPES.length ? ['*'] : known;
}

/** The checkboxes ticked for an endpoint's events: `*` ticks them all. */
export function pickedEvents(enabled: readonly string[]): string[] {
  return enabled.includes('*') ? [...EVENT_TYPES] : EVENT_TYPES.filter((type) => enabled.includes(type));
}
