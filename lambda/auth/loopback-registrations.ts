import type { OAuthStore } from '../ports/oauth-store.js';

/**
 * Registrations from this machine's own processes, on the local server (decision 0106, issue 34).
 * Every local process is 127.0.0.1, so a count per address let one process lock every local
 * sign-up out, and a count per client name (oauth-limits.ts) let a process that varies the name
 * register without end. Nobody is refused here: an unused loopback registration lapses after an
 * hour, and at most `live` wait at once — a registration past that ends the oldest waiting one,
 * whose client, if it was still signing in, is told to sign in again. Storage stays bounded
 * whatever the names; the per-name count still bounds a process that does not vary its name.
 * In AWS no caller is loopback, and the WAF bounds each address (decision 0094).
 */

export interface LoopbackRegistrationLimits {
  /** Unused loopback registrations that may wait for their sign-in at once. */
  readonly live: number;
  /** How long an unused loopback registration stays valid: a sign-in takes minutes. */
  readonly unusedSeconds: number;
}

export const LOOPBACK_REGISTRATIONS: LoopbackRegistrationLimits = { live: 100, unusedSeconds: 3_600 };

/** Loopback addresses as `clientAddress` writes them: every local process has one of these. */
const LOOPBACK = /^127\.\d+\.\d+\.\d+$|^0:0:0:0::\/64$/;

export const isLoopback = (address: string): boolean => LOOPBACK.test(address);

interface Waiting {
  readonly clientId: string;
  readonly lapsesAt: number;
}

/** The loopback registrations waiting for a sign-in, oldest first; kept by the process, which locally is the only one. */
export class LoopbackRegistrations {
  private readonly waiting: Waiting[] = [];

  constructor(private readonly limits: LoopbackRegistrationLimits = LOOPBACK_REGISTRATIONS) {}

  /** Records a new registration; returns the ids of the oldest waiting ones to end now, so that at most `live` wait. */
  registered(clientId: string, lapsesAt: Date, now: Date): string[] {
    // Every registration here lapses the same time after it was made: the lapsed ones are at the front.
    while ((this.waiting[0]?.lapsesAt ?? Number.POSITIVE_INFINITY) <= now.getTime()) this.waiting.shift();
    this.waiting.push({ clientId, lapsesAt: lapsesAt.getTime() });
    const over = Math.max(0, this.waiting.length - this.limits.live);
    return this.waiting.splice(0, over).map((w) => w.clientId);
  }
}

/** One list per store, that is per container: the local server has one. */
const lists = new WeakMap<OAuthStore, LoopbackRegistrations>();

export function loopbackRegistrationsOf(store: OAuthStore): LoopbackRegistrations {
  let list = lists.get(store);
  if (!list) {
    list = new LoopbackRegistrations();
    lists.set(store, list);
  }
  return list;
}
