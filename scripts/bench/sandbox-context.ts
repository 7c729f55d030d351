// The use cases' context the bench's own processes run with: the sandbox acquirer for every business,
// no outbox worker to wake, and a secrets key of the process's own (nothing it seals outlives it).
import { settlementTerms } from '../../server/usecases/settlement/terms.js';
import { randomBytes } from 'node:crypto';
import { SandboxAcquirer } from '../../server/acquirers/sandbox.js';
import { MasterKey } from '../../server/secrets/master-key.js';
import type { Executor } from '../../server/store/executor.js';
import type { UseCaseContext } from '../../server/usecases/platform/context.js';
import { singleAcquirer } from '../../server/usecases/platform/acquirer-directory.js';

export function sandboxContext(db: Executor, publicUrl: string): UseCaseContext {
  return {
    db,
    publicUrl,
    acquirers: singleAcquirer(new SandboxAcquirer()),
    settlement: settlementTerms(),
    outbox: { nudge: () => undefined },
    webhooks: { policy: { allowPrivate: false, serviceUrls: [publicUrl] } },
    secretsKey: new MasterKey(randomBytes(32)),
  };
}
