// A real SMTP server in the test process, on loopback: what the service sends arrives over SMTP and
// is parsed with mailparser, as a mail client would see it.
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface TestSmtp {
  url: string;
  messages: ParsedMail[];
  /** RCPT TO commands seen, accepted or refused. */
  attempts: number;
  /** Connection errors, such as a sender killed mid-session resetting its socket. */
  errors: Error[];
  close(): Promise<void>;
}

/** What the server answers a recipient it refuses. */
export type Refusal = (recipient: string) => { code: number; message: string };

const TEMPORARILY: Refusal = () => ({ code: 451, message: 'Mailbox temporarily unavailable' });

/** `refuse(n)` decides, for the n-th delivery attempt (from 1), whether the server refuses it (451 unless `refusal` says otherwise). */
export async function startSmtp(refuse: (attempt: number) => boolean = () => false, refusal: Refusal = TEMPORARILY): Promise<TestSmtp> {
  const state: TestSmtp = { url: '', messages: [], attempts: 0, errors: [], close: async () => {} };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      state.attempts += 1;
      if (refuse(state.attempts)) {
        const { code, message } = refusal(address.address);
        return callback(Object.assign(new Error(message), { responseCode: code }));
      }
      callback();
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          state.messages.push(mail);
          callback();
        },
        (error) => callback(error),
      );
    },
  });
  // smtp-server re-emits every connection's error on the server, where without a listener it is thrown.
  server.on('error', (error) => state.errors.push(error));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}
