// Preloaded into the service the scale bench starts (`--import`): the longest the event loop was
// held since the bench last asked, as perf_hooks measures it, answered over the IPC channel.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();

process.on('message', (message) => {
  if (message === 'loop-delay:reset') delay.reset();
  else if (message === 'loop-delay:read') process.send?.({ loopDelayMaxMs: delay.max / 1e6, loopDelayP99Ms: delay.percentile(99) / 1e6 });
});
// The channel must not keep the service alive once it is told to stop.
process.channel?.unref();
