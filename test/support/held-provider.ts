// The sandbox acquirer, except that an authorisation a test holds waits until the test lets it go: a
// slow acquirer on cue, so that a test can change a link while a payer's card is being authorised
// and know the change came after the page's own checks and before the claim that records the payment.
import type { AuthorizeRequest, AuthorizeResult } from '../../server/acquirers/acquirer.js';
import { SandboxAcquirer } from '../../server/acquirers/sandbox.js';
import type { OpenedForm, PageResponse, Payer } from './payer.js';

interface Hold {
  /** Settles with the request once the acquirer has been asked to authorise. */
  started: Promise<AuthorizeRequest>;
  release(): void;
}

export class HeldProvider extends SandboxAcquirer {
  /** Authorisation ids by our payment id (the request's reference). */
  readonly authorized = new Map<string, string>();
  readonly captured: string[] = [];
  readonly voided: string[] = [];
  private readonly holds: { begin(request: AuthorizeRequest): void; released: Promise<void> }[] = [];

  /** The next authorisation asked for waits until `release()`; the ones after it do not. */
  holdNext(): Hold {
    let begin!: (request: AuthorizeRequest) => void;
    let release!: () => void;
    const started = new Promise<AuthorizeRequest>((resolve) => (begin = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    this.holds.push({ begin, released });
    return { started, release };
  }

  override async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    const hold = this.holds.shift();
    if (hold) {
      hold.begin(request);
      await hold.released;
    }
    const result = await super.authorize(request);
    if (result.outcome === 'authorized') this.authorized.set(request.reference, result.authorizationId);
    return result;
  }

  override async capture(authorizationId: string): Promise<void> {
    this.captured.push(authorizationId);
    await super.capture(authorizationId);
  }

  override async void(authorizationId: string): Promise<void> {
    this.voided.push(authorizationId);
    await super.void(authorizationId);
  }
}

/**
 * Submits a payer's form with its authorisation held. Answers once the acquirer has been asked (so the
 * link passed the page's checks), with `finish`, which lets the authorisation go and answers the page.
 */
export async function submitHeld(
  provider: HeldProvider,
  payer: Payer,
  form: OpenedForm,
  fields: Record<string, string>,
): Promise<{ request: AuthorizeRequest; finish: () => Promise<PageResponse> }> {
  const hold = provider.holdNext();
  const answer = payer.submit(form, fields);
  const first = await Promise.race([hold.started, answer]);
  if (!('reference' in first)) {
    // Let the hold go, so that it keeps no later payer waiting.
    hold.release();
    throw new Error(`the page answered ${first.status} before the acquirer was asked to authorise: ${first.html}`);
  }
  return {
    request: first,
    finish: () => {
      hold.release();
      return answer;
    },
  };
}
