// One of several processes starting at once on databases without a key file: says "ready", then for
// each key file path read on stdin (sent to every racer at once) loads the key and prints what it
// got as one JSON line.
import { createInterface } from 'node:readline';
import { readOrCreateKeyFile } from '../../server/secrets/key-source.js';

const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
lines.on('line', (path) => {
  const { key, created } = readOrCreateKeyFile(path);
  process.stdout.write(`${JSON.stringify({ path, id: key.id, created })}\n`);
});
