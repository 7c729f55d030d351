// The e-mails the service wrote to its mail folder (the test's own, see service.ts), read back parsed,
// and the outbox drained of them, so that a test can say what was not sent without waiting on time.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { TestService } from './service.js';
import { waitFor } from './wait.js';

/** Every e-mail written so far to `email`. */
export async function mailsTo(t: TestService, email: string): Promise<ParsedMail[]> {
  const mailDir = join(t.dir, 'mail');
  let files: string[];
  try {
    files = readdirSync(mailDir).filter((name) => name.endsWith('.eml'));
  } catch {
    return [];
  }
  const parsed = await Promise.all(files.map((file) => simpleParser(readFileSync(join(mailDir, file)))));
  return parsed.filter((mail) => (mail.to as { text: string } | undefined)?.text.includes(email));
}

/** Waits for the e-mail to `email` whose subject matches, and answers it. */
export async function mailTo(t: TestService, email: string, subject: string | RegExp): Promise<ParsedMail> {
  return waitFor(`an e-mail "${subject}" to ${email}`, async () =>
    (await mailsTo(t, email)).find((mail) => (typeof subject === 'string' ? mail.subject === subject : subject.test(mail.subject ?? ''))),
  );
}

/** Waits until the outbox holds no e-mail still to deliver. */
export async function emailsDelivered(t: TestService): Promise<void> {
  await waitFor('the outbox to deliver its e-mails', async () => {
    const [row] = await t.sql('outbox').where({ channel: 'email', status: 'pending' }).count({ count: '*' });
    return Number((row as { count: number | string }).count) === 0;
  });
}
