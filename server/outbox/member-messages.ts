// The e-mails a member gets about their own account: a password-reset link, and word of what changed
// its security (the password, two-factor sign-in and its recovery codes) or of failed attempts at its
// secrets. Composed when enqueued, in English like the console and the invitation.
import { translator } from '../i18n/index.js';
import type { EmailMessage } from './messages.js';
import { emailHtml } from './messages.js';

const SERVICE = { name: 'Payment collection service', logoUrl: null, brand: null };
const tr = translator('en');

/** When and from where, as the member reads it: "at 2026-11-28 10:15 UTC from 203.0.113.9". */
function atFrom(at: string, address: string | null): string {
  return `at ${at.slice(0, 16).replace('T', ' ')} UTC${address ? ` from ${address}` : ''}`;
}

function message(to: string, subject: string, lines: string[], action?: { label: string; url: string }): EmailMessage {
  const text = `Hello,\n\n${lines.join('\n\n')}\n${action ? `\n${action.label}: ${action.url}\n` : ''}`;
  return { to, subject, text, html: emailHtml(tr, SERVICE, subject, ['Hello,', ...lines], action) };
}

export interface MemberNotice {
  to: string;
  at: string;
  address: string | null;
  /** The console's page that asks for a reset link, for a member who did not make the change. */
  resetUrl: string;
}

export function passwordResetEmail(reset: { to: string; url: string; expiresAt: string; at: string; address: string | null }): EmailMessage {
  return message(
    reset.to,
    'Reset your password',
    [
      `Someone asked ${atFrom(reset.at, reset.address)} to reset the password of your account on the payment collection service.`,
      `The link works once, until ${reset.expiresAt.slice(0, 16).replace('T', ' ')} UTC. A new password signs you out everywhere; two-factor sign-in stays on if it is on.`,
      'If you did not ask, ignore this e-mail: your password stays as it is.',
    ],
    { label: 'Choose a new password', url: reset.url },
  );
}

export function passwordChangedEmail(notice: MemberNotice & { by: 'change' | 'reset' }): EmailMessage {
  const how = notice.by === 'reset' ? 'was reset through a link e-mailed to you' : 'was changed';
  return message(
    notice.to,
    'Your password was changed',
    [
      `The password of your account on the payment collection service ${how} ${atFrom(notice.at, notice.address)}. Your other sessions were signed out.`,
      'If this was not you, reset your password now and tell the owner of your business.',
    ],
    { label: 'Reset your password', url: notice.resetUrl },
  );
}

export function twoFactorEmail(notice: MemberNotice & { on: boolean }): EmailMessage {
  const lines = notice.on
    ? [
        `Two-factor sign-in was turned on for your account on the payment collection service ${atFrom(notice.at, notice.address)}.`,
        'A new set of ten recovery codes was made with it; codes from before no longer work. Keep them where only you can read them.',
      ]
    : [
        `Two-factor sign-in was turned off for your account on the payment collection service ${atFrom(notice.at, notice.address)}. Signing in now asks for your password alone, and your recovery codes no longer work.`,
      ];
  return message(
    notice.to,
    notice.on ? 'Two-factor sign-in is on' : 'Two-factor sign-in is off',
    [...lines, 'Your other sessions were signed out. If this was not you, reset your password now and tell the owner of your business.'],
    { label: 'Reset your password', url: notice.resetUrl },
  );
}

export function recoveryCodesEmail(notice: MemberNotice): EmailMessage {
  return message(
    notice.to,
    'New two-factor recovery codes',
    [
      `A new set of ten recovery codes was made for your account on the payment collection service ${atFrom(notice.at, notice.address)}; codes from before no longer work.`,
      'If this was not you, someone knows your password and has your authenticator: reset your password now and tell the owner of your business.',
    ],
    { label: 'Reset your password', url: notice.resetUrl },
  );
}

export function failedAttemptsEmail(notice: MemberNotice): EmailMessage {
  return message(
    notice.to,
    'Failed attempts to sign in to your account',
    [
      `Attempts with a wrong password or two-factor code for your account on the payment collection service keep failing (the latest ${atFrom(notice.at, notice.address)}). Further attempts are slowed down; you can still sign in from where you signed in before.`,
      'If this was not you, your account is safe as long as your password is. If you think someone knows it, reset it, and turn on two-factor sign-in. You hear of this at most once in a while, however many attempts follow.',
    ],
    { label: 'Reset your password', url: notice.resetUrl },
  );
}
