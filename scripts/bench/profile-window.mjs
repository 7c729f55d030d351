// Preloaded (`node --import`) into a server the hot-path profile measures: the first SIGUSR2 starts
// V8's CPU profiler through node:inspector, the second stops it and writes the profile to
// PROFILE_FILE; each step is said in PROFILE_FILE.log (the server's own log is a flood of access lines).
// Only the load's window is profiled, not the start-up.
import { appendFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

const file = process.env.PROFILE_FILE;
if (file) {
  const session = new Session();
  session.connect();
  let running = false;
  process.on('SIGUSR2', () => {
    void (async () => {
      if (!running) {
        running = true;
        await session.post('Profiler.enable');
        // 100 µs between samples: fine enough for per-request costs of tens of microseconds.
        await session.post('Profiler.setSamplingInterval', { interval: 100 });
        await session.post('Profiler.start');
        appendFileSync(`${file}.log`, 'started\n');
        return;
      }
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      running = false;
      appendFileSync(`${file}.log`, 'written\n');
    })();
  });
}
