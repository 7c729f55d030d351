// Raw TCP to the service, for what an HTTP client does not let a test do: send headers and part of a
// body, keep sending after the answer, or read exactly what the server wrote before it closed.
import { connect, type Socket } from 'node:net';

/** A connection to the service at `url` (http://127.0.0.1:port...). */
export function openSocket(url: string): Promise<Socket> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sends until it closes the connection. */
export function answerOf(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    socket.on('error', () => {});
    socket.on('close', () => resolve(answer));
  });
}

/** The first whole answer (status line, headers, and the body its Content-Length announces), whether or not the connection stays open. */
export function firstAnswer(socket: Socket): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = received.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (received.length < end + 4 + length) return;
      socket.off('data', onData);
      resolve({ status: Number(head.split(' ')[1]), head, body: received.subarray(end + 4, end + 4 + length).toString('utf8') });
    };
    socket.on('data', onData);
    socket.on('error', () => {});
    socket.once('close', () => reject(new Error(`the connection closed before a whole answer: ${received.toString('latin1').slice(0, 300)}`)));
  });
}

/**
 * Writes `head`, then each chunk `next()` gives, until the server closes the connection or `next()`
 * gives nothing more: what came back, and how many body bytes were sent.
 */
export async function sendUntilClosed(socket: Socket, head: string, next: () => Promise<Buffer | undefined>): Promise<{ answer: string; sent: number }> {
  const answer = answerOf(socket);
  let closed = false;
  const gone = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  void gone.then(() => (closed = true));
  socket.write(head);
  let sent = 0;
  for (let chunk = await next(); chunk && !closed; chunk = await next()) {
    sent += chunk.length;
    if (!socket.write(chunk)) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), gone]);
  }
  return { answer: await answer, sent };
}
