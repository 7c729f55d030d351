// The audit log in words. The API records what was done as an operation id (`pauseOpenPaymentLink`)
// or a sign-in event (`auth.login`), the ids in the request's path (and of what it created) and, for
// some events, details; it names no record. This says what happened as a sentence, and which kind of
// record its first id is, so the view can read that record's name ("Paused open payment link 'Tabung
// Surau'").
import type { operations } from '@payment-collection/client';

/** The records whose name the view reads to put it in a sentence. */
export type NamedRecord = 'payment_link' | 'open_payment_link' | 'webhook_endpoint' | 'token';

export type AuditAction =
  | keyof operations
  | 'auth.business_switched'
  | 'auth.link_password_failed'
  | 'auth.login'
  | 'auth.login_failed'
  | 'auth.login_throttled'
  | 'auth.logout'
  | 'auth.password_changed'
  | 'auth.password_reset'
  | 'auth.password_reset_requested'
  | 'auth.recovery_codes_regenerated'
  | 'auth.session_ended'
  | 'auth.totp_disabled'
  | 'auth.totp_enabled'
  | 'team.invitation_created'
  | 'team.invitation_revoked'
  | 'team.member_created'
  | 'team.member_removed'
  | 'team.member_role_changed'
  | 'team.two_factor_requirement_changed';

interface Wording {
  /** What was done, in the past tense: "Paused open payment link". */
  did: string;
  /** The kind of record the event's first id is, where it has a name worth reading. */
  names?: NamedRecord;
}

const AUDIT_WORDS: Partial<Record<AuditAction, Wording>> = {
  createPaymentLink: { did: 'Created payment link', names: 'payment_link' },
  updatePaymentLink: { did: 'Changed payment link', names: 'payment_link' },
  deletePaymentLink: { did: 'Deleted payment link', names: 'payment_link' },
  pausePaymentLink: { did: 'Paused payment link', names: 'payment_link' },
  resumePaymentLink: { did: 'Resumed payment link', names: 'payment_link' },
  createOpenPaymentLink: { did: 'Created open payment link', names: 'open_payment_link' },
  updateOpenPaymentLink: { did: 'Changed open payment link', names: 'open_payment_link' },
  deleteOpenPaymentLink: { did: 'Deleted open payment link', names: 'open_payment_link' },
  pauseOpenPaymentLink: { did: 'Paused open payment link', names: 'open_payment_link' },
  resumeOpenPaymentLink: { did: 'Resumed open payment link', names: 'open_payment_link' },
  createRefund: { did: 'Refunded a payment' },
  createToken: { did: 'Asked a payer to save a card', names: 'token' },
  createCharge: { did: 'Charged a saved card', names: 'token' },
  removeTokenCard: { did: 'Removed the saved card', names: 'token' },
  resendEvent: { did: 'Sent an event again' },
  createWebhookEndpoint: { did: 'Added webhook endpoint', names: 'webhook_endpoint' },
  updateWebhookEndpoint: { did: 'Changed webhook endpoint', names: 'webhook_endpoint' },
  deleteWebhookEndpoint: { did: 'Deleted webhook endpoint', names: 'webhook_endpoint' },
  rotateWebhookEndpointSecret: { did: 'Changed the signing secret of webhook endpoint', names: 'webhook_endpoint' },
  testWebhookEndpoint: { did: 'Sent a test event to webhook endpoint', names: 'webhook_endpoint' },
  rotateRedirectSigningKey: { did: 'Changed the redirect signing key' },
  createApiKey: { did: 'Created an API key' },
  revokeApiKey: { did: 'Revoked an API key' },
  updateTeamMember: { did: "Changed a member's role" },
  removeTeamMember: { did: 'Removed a member' },
  createTeamInvitation: { did: 'Invited a member' },
  revokeTeamInvitation: { did: 'Revoked an invitation' },
  updateTeamSettings: { did: 'Changed the team settings' },
  updateBusiness: { did: "Changed the business's profile" },
  setAcquirer: { did: 'Set the acquirer' },
  putBusinessLogo: { did: 'Uploaded a logo' },
  deleteBusinessLogo: { did: 'Removed the logo' },
  runTestPayouts: { did: 'Simulated payouts (sandbox)' },
  failTestPayout: { did: 'Failed a payout (sandbox)' },
  createBankStatement: { did: 'Uploaded a bank statement' },
  deleteSession: { did: 'Signed a session out' },
  changePassword: { did: 'Changed their password' },
  startTotp: { did: 'Started setting up two-factor sign-in' },
  confirmTotp: { did: 'Turned two-factor sign-in on' },
  disableTotp: { did: 'Turned two-factor sign-in off' },
  regenerateRecoveryCodes: { did: 'Made new recovery codes' },
  'auth.business_switched': { did: 'Switched business' },
  'auth.link_password_failed': { did: 'Was refused a password on a one-time link' },
  'auth.login': { did: 'Signed in' },
  'auth.login_failed': { did: 'Failed to sign in' },
  'auth.login_throttled': { did: 'Was stopped signing in after too many tries' },
  'auth.logout': { did: 'Signed out' },
  'auth.password_changed': { did: 'Changed their password' },
  'auth.password_reset': { did: 'Reset their password' },
  'auth.password_reset_requested': { did: 'Asked for a password reset' },
  'auth.recovery_codes_regenerated': { did: 'Made new recovery codes' },
  'auth.session_ended': { did: 'Ended a session' },
  'auth.totp_disabled': { did: 'Turned two-factor sign-in off' },
  'auth.totp_enabled': { did: 'Turned two-factor sign-in on' },
  'team.invitation_created': { did: 'Invited a member' },
  'team.invitation_revoked': { did: 'Revoked an invitation' },
  'team.member_created': { did: 'Joined the team' },
  'team.member_removed': { did: 'Removed a member' },
  'team.member_role_changed': { did: "Changed a member's role" },
  'team.two_factor_requirement_changed': { did: 'Changed whether two-factor sign-in is required' },
};

/** "pauseOpenPaymentLink" as "Pause open payment link", "auth.new_thing" as "New thing": an action this console was built without still reads. */
function spelledOut(action: string): string {
  const words = action
    .replace(/^[a-z]+\./, '')
    .replaceAll('_', ' ')
    .replaceAll(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function auditWording(action: string): Wording {
  return AUDIT_WORDS[action as AuditAction] ?? { did: spelledOut(action) };
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * What happened, as a sentence: what was done, the record's name where one was read, and what the
 * event's details add (a role change's roles, an invitation's e-mail and role).
 */
export function auditSentence(event: { action: string; details: Record<string, unknown> | null }, recordName?: string): string {
  const { did } = auditWording(event.action);
  const details = event.details ?? {};
  let sentence = recordName === undefined ? did : `${did} '${recordName}'`;
  const [email, role, oldRole, newRole] = [text(details.email), text(details.role), text(details.old_role), text(details.new_role)];
  if (oldRole && newRole) sentence += ` from ${oldRole} to ${newRole}`;
  else if (email && role) sentence += ` (${email} as ${role})`;
  else if (email) sentence += ` (${email})`;
  return sentence;
}
