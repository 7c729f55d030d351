// The service's own logger (scrubbing included), writing to memory: tests read back what an operator would see.
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../server/logger.js';

export function capturedLog(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ level: 'info', destination }), lines };
}
