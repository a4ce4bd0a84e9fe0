// Per-tenant circuits of the HTTP client (docs/spec/contracts.md §17).

interface TenantCircuit {
  timeouts: number[];
  openUntil: number;
}

// Tenants tracked at most; past it the quietest are forgotten (a circuit is short-lived anyway).
const MAX_TRACKED_TENANTS = 10_000;

/**
 * Per-tenant timeouts (docs/spec/contracts.md §17): each tenant's circuit, and how many tenants
 * timed out lately, which decides whether a timeout says the target itself is slow.
 */
export class TenantTimeouts {
  private readonly circuits = new Map<string, TenantCircuit>();

  constructor(
    private readonly threshold: number,
    private readonly windowMs: number,
    private readonly openMs: number,
  ) {}

  /** Until when the tenant's own circuit refuses its calls (0: closed). */
  openUntil(tenant: string, now: number): number {
    const circuit = this.circuits.get(tenant);
    return circuit !== undefined && circuit.openUntil > now ? circuit.openUntil : 0;
  }

  /** Records a timeout of the tenant's; true when it opened the tenant's circuit. */
  record(tenant: string, now: number): boolean {
    let circuit = this.circuits.get(tenant);
    if (circuit === undefined) {
      if (this.circuits.size >= MAX_TRACKED_TENANTS) this.forgetQuiet(now);
      circuit = { timeouts: [], openUntil: 0 };
      this.circuits.set(tenant, circuit);
    }
    circuit.timeouts = circuit.timeouts.filter((at) => now - at < this.windowMs);
    circuit.timeouts.push(now);
    if (circuit.timeouts.length >= this.threshold && circuit.openUntil <= now) {
      circuit.openUntil = now + this.openMs;
      circuit.timeouts = [];
      return true;
    }
    return false;
  }

  /** A call of the tenant's answered in time: its count starts again. */
  succeeded(tenant: string): void {
    const circuit = this.circuits.get(tenant);
    if (circuit !== undefined && circuit.openUntil === 0) this.circuits.delete(tenant);
  }

  /** Tenants with a timeout (or an open circuit) in the window. */
  tenantsTimingOut(now: number): number {
    let count = 0;
    for (const circuit of this.circuits.values()) {
      if (circuit.openUntil > now || circuit.timeouts.some((at) => now - at < this.windowMs)) count += 1;
    }
    return count;
  }

  private forgetQuiet(now: number): void {
    for (const [tenant, circuit] of this.circuits) {
      if (circuit.openUntil <= now && circuit.timeouts.every((at) => now - at >= this.windowMs)) {
        this.circuits.delete(tenant);
      }
    }
    if (this.circuits.size >= MAX_TRACKED_TENANTS) this.circuits.clear();
  }
}
