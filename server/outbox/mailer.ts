// E-mail transport: nodemailer over SMTP when SMTP_URL is set; otherwise (the embedded default)
// each message is written as an .eml file a developer can open.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Transporter } from 'nodemailer';
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

/** nodemailer, loaded when the first message is sent rather than at every start. */
export function loadNodemailer(): typeof import('nodemailer') {
  return createRequire(import.meta.url)('nodemailer') as typeof import('nodemailer');
}

export function createMailer(config: MailConfig): Mailer {
  if (config.smtpUrl) {
    // Timeouts stay well inside the outbox lease, so a hung server never lets two workers deliver one entry.
    const smtpUrl = config.smtpUrl;
    let transport: Transporter | undefined;
    return {
      describe: `SMTP ${new URL(smtpUrl).host}`,
      async send(message) {
        transport ??= loadNodemailer().createTransport(smtpUrl, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as never);
        await transport.sendMail({ from: config.from, ...message });
      },
      close: () => transport?.close(),
    };
  }
  let transport: Transporter | undefined;
  return {
    describe: `files in ${config.mailDir}`,
    async send(message) {
      transport ??= loadNodemailer().createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
      const info = await transport.sendMail({ from: config.from, ...message });
      mkdirSync(config.mailDir, { recursive: true });
      const name = message.messageId.replace(/[<>]/g, '').replace(/[^A-Za-z0-9._-]/g, '_');
      writeFileSync(join(config.mailDir, `${name}.eml`), info.message as Buffer);
    },
    close: () => transport?.close(),
  };
}
