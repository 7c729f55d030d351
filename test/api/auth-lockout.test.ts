// No lockout on demand: a stranger who knows a member's e-mail runs up every limit on attempts at the
// account from addresses of their own, and the member still signs in (with their code, when two-factor
// is on) from an address they signed in from before; strangers, and the member's own new addresses,
// wait (429, recorded as auth.login_throttled). The member hears of the failures by e-mail once a
// window, however many follow. Addresses are the proxy's X-Forwarded-For (TRUST_PROXY_HOPS=1).
import { describe, expect, it } from 'vitest';
import { emailsDelivered, mailsTo } from '../support/member-mail.js';
import { PASSWORD, call, member, signIn, totpCode, type ApiAnswer } from '../support/members.js';
import { useService } from '../support/service.js';
import { clearOfWindowEdge } from '../support/window-edge.js';

const PER_ACCOUNT = 3;
const CEILING = 6;
const NOTICE_AFTER = 4;
const t = useService({
  trustProxyHops: 1,
  signInLimits: {
    perAccount: { limit: PER_ACCOUNT, seconds: 900 },
    perAddress: { limit: 50, seconds: 900 },
    accountCeiling: { limit: CEILING, seconds: 900 },
    noticeAfter: NOTICE_AFTER,
  },
});

let addresses = 0;
/** Each test's addresses are its own: the limits per address outlive a test. */
const newAddress = () => `198.51.100.${++addresses}`;

function signInFrom(address: string, body: Record<string, string>): Promise<ApiAnswer> {
  return call(t, 'POST', '/api/auth/login', { body, headers: { 'X-Forwarded-For': address } });
}

/**
 * Strangers at three addresses of theirs, each trying more often than it may: the account's ceiling is
 * used up (refusals count too). Answers how many attempts were checked (and failed).
 */
async function attack(email: string, body: Record<string, string> = {}): Promise<number> {
  let checked = 0;
  for (let stranger = 0; stranger < 3; stranger++) {
    const address = newAddress();
    const answers = await Promise.all(
      Array.from({ length: PER_ACCOUNT + 2 }, (_, i) => signInFrom(address, { email, password: `wrong-guess-${i}-abcdefg`, ...body })),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(PER_ACCOUNT);
    checked += statuses.filter((status) => status === 401).length;
  }
  expect(checked).toBeLessThanOrEqual(CEILING);
  return checked;
}

async function auditCount(action: string, email: string): Promise<number> {
  const [row] = await t.sql('audit_events').where({ action, actor_label: email }).count({ count: '*' });
  return Number((row as { count: number | string }).count);
}

describe('no lockout on demand', () => {
  it('lets the member in from an address they signed in from before, while strangers (even with the password) and new addresses wait', async () => {
    await clearOfWindowEdge(900, 10);
    const { email } = await member(t, t.a.business.id, 'admin');
    const home = newAddress();
    expect((await signInFrom(home, { email, password: PASSWORD })).status).toBe(200);

    const failed = await attack(email);
    // The password itself does not get a stranger in from an address of theirs: the ceiling holds them.
    const stranger = await signInFrom(newAddress(), { email, password: PASSWORD });
    expect(stranger.status).toBe(429);
    expect(Number(stranger.headers.get('retry-after'))).toBeGreaterThan(0);
    // The member, from home, is let in; from an address never used they wait like anyone.
    expect((await signInFrom(home, { email, password: PASSWORD })).status).toBe(200);
    expect((await signInFrom(newAddress(), { email, password: PASSWORD })).status).toBe(429);
    // Throttled sign-ins are in the audit log, beside the failures.
    expect(await auditCount('auth.login_failed', email)).toBe(failed);
    expect(await auditCount('auth.login_throttled', email)).toBeGreaterThanOrEqual(3);
    const [row] = await t.sql('audit_events').where({ action: 'auth.login_throttled', actor_label: email }).select('business_id', 'outcome', 'status');
    expect(row).toMatchObject({ business_id: t.a.business.id, outcome: 'refused', status: 429 });
  }, 60_000);

  it('lets a member with two-factor on in with the password and a code from a known address, while strangers guessing codes wait', async () => {
    await clearOfWindowEdge(900, 10);
    const { email } = await member(t, t.a.business.id, 'viewer');
    const home = newAddress();
    const first = await signInFrom(home, { email, password: PASSWORD });
    const session = { cookie: first.headers.getSetCookie()[0]!.split(';')[0]!.split('=')[1]!, csrf: first.body.data.csrf_token };
    const offer = await call(t, 'POST', '/api/auth/totp', { ...session, headers: { 'X-Forwarded-For': home } });
    const secret: string = offer.body.data.secret;
    const on = await call(t, 'POST', '/api/auth/totp/confirm', { ...session, body: { code: totpCode(secret) }, headers: { 'X-Forwarded-For': home } });
    expect(on.status).toBe(200);

    // Strangers who know the password guess codes.
    await attack(email, { password: PASSWORD, totp_code: '000000' });
    expect((await signInFrom(newAddress(), { email, password: PASSWORD, totp_code: totpCode(secret, 1) })).status).toBe(429);
    const back = await signInFrom(home, { email, password: PASSWORD, totp_code: totpCode(secret, 1) });
    expect(back.status).toBe(200);
    expect(back.body.data.user.email).toBe(email);
  }, 60_000);

  it('e-mails the member once about repeated failures, however many follow in the window', async () => {
    await clearOfWindowEdge(900, 10);
    const { email } = await member(t, t.a.business.id, 'viewer');
    // One failure from each of as many addresses as the ceiling allows: three past the threshold.
    for (let i = 0; i < CEILING; i++) expect((await signInFrom(newAddress(), { email, password: 'wrong-guess-abcdefg' })).status).toBe(401);
    await attack(email);
    await emailsDelivered(t);
    const mails = (await mailsTo(t, email)).filter((mail) => mail.subject === 'Failed attempts to sign in to your account');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toMatch(/keep failing \(the latest at \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC from 198\.51\.100\.\d+\)/);
    expect(mails[0]!.text).toContain(`${t.url}/console/forgot-password`);
  }, 60_000);

  it('sends no such e-mail for a few failures', async () => {
    const { email } = await member(t, t.a.business.id, 'viewer');
    for (let i = 0; i < NOTICE_AFTER - 1; i++) expect((await signInFrom(newAddress(), { email, password: 'wrong-guess-abcdefg' })).status).toBe(401);
    await signIn(t, email);
    await emailsDelivered(t);
    expect(await mailsTo(t, email)).toEqual([]);
  });
});
