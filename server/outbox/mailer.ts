// E-mail transport: nodemailer over SMTP when SMTP_URL is set; otherwise (the embedded default)
// each message is written as an .eml file a developer can open.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { EmailMessage } from './messages.js';

export interface MailConfig {
  smtpUrl: string | undefined;
  from: string;
  mailDir: string;
}

export interface OutgoingEmail extends EmailMessage {
  /** Stable across retries, so a mail client can fold duplicates. */
  messageId: string;
}

export interface Mailer {
  /** Where messages go, for the start-up banner. */
  readonly describe: string;
  send(message: OutgoingEmail): Promise<void>;
  close(): void;
}

export function createMailer(config: MailConfig): Mailer {
  if (config.smtpUrl) {
    // Timeouts stay well inside the outbox lease, so a hung server never lets two workers deliver one entry.
    const transport = nodemailer.createTransport(config.smtpUrl, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as never);
    return {
      describe: `SMTP ${new URL(config.smtpUrl).host}`,
      async send(message) {
        await transport.sendMail({ from: config.from, ...message });
      },
      close: () => transport.close(),
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    describe: `files in ${config.mailDir}`,
    async send(message) {
      const info = await transport.sendMail({ from: config.from, ...message });
      mkdirSync(config.mailDir, { recursive: true });
      const name = message.messageId.replace(/[<>]/g, '').replace(/[^A-Za-z0-9._-]/g, '_');
      writeFileSync(join(config.mailDir, `${name}.eml`), info.message as Buffer);
    },
    close: () => transport.close(),
  };
}
