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

/** `refuse(n)` decides, for the n-th delivery attempt (from 1), whether the server answers 451. */
export async function startSmtp(refuse: (attempt: number) => boolean = () => false): Promise<TestSmtp> {
  const state: TestSmtp = { url: '', messages: [], attempts: 0, errors: [], close: async () => {} };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      state.attempts += 1;
      if (refuse(state.attempts)) {
        const error = Object.assign(new Error('Mailbox temporarily unavailable'), { responseCode: 451 });
        return callback(error);
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
