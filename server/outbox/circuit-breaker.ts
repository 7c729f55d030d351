// A circuit breaker per webhook endpoint. After `threshold` failed deliveries in a row the endpoint
// is open: its entries are put back until the cool-down has passed, without a request and without
// holding a delivery slot. Then one delivery goes through as a probe; success closes the circuit,
// failure opens it for another cool-down. State is per process: each worker learns on its own.

export interface BreakerSettings {
  /** Failed deliveries in a row that open the circuit. */
  threshold: number;
  coolDownMs: number;
}

/** `probe`: this delivery is the one test of an endpoint whose cool-down is over. */
export type Admission = { allowed: true; probe: boolean } | { allowed: false; retryAt: Date };
export type Outcome = 'success' | 'failure' | 'neither';

interface EndpointState {
  failures: number;
  openUntil: number;
  probing: boolean;
}

export class CircuitBreakers {
  private readonly endpoints = new Map<string, EndpointState>();

  constructor(
    private readonly settings: BreakerSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a delivery to `endpoint` may go now; when not, when to try again. */
  admit(endpoint: string): Admission {
    const state = this.endpoints.get(endpoint);
    if (!state || state.failures < this.settings.threshold) return { allowed: true, probe: false };
    const now = this.now();
    if (now < state.openUntil) return { allowed: false, retryAt: new Date(state.openUntil) };
    // Cool-down over: one probe at a time; the others wait as long as a cool-down, by when the probe has settled.
    if (state.probing) return { allowed: false, retryAt: new Date(now + this.settings.coolDownMs) };
    state.probing = true;
    return { allowed: true, probe: true };
  }

  /**
   * Records how an admitted delivery ended; `neither` for an outcome that says nothing about the
   * endpoint's health (e.g. a URL refused before any request). True when this opened the circuit.
   */
  settle(endpoint: string, admission: { probe: boolean }, outcome: Outcome): boolean {
    const state = this.endpoints.get(endpoint);
    if (outcome === 'success') {
      this.endpoints.delete(endpoint);
      return false;
    }
    if (outcome === 'neither') {
      if (state && admission.probe) state.probing = false;
      return false;
    }
    const next = state ?? { failures: 0, openUntil: 0, probing: false };
    this.endpoints.set(endpoint, next);
    next.failures += 1;
    const opens = admission.probe || next.failures === this.settings.threshold;
    if (opens) next.openUntil = this.now() + this.settings.coolDownMs;
    if (admission.probe) next.probing = false;
    return opens;
  }

  /** Whether `endpoint` is open now (for logs and tests). */
  isOpen(endpoint: string): boolean {
    const state = this.endpoints.get(endpoint);
    return Boolean(state && state.failures >= this.settings.threshold);
  }
}
