import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuditActor } from './audit.types.js';

/** Who acts in a request or command, and from which client address. */
export interface ActingParty {
  actor: AuditActor | undefined;
  address: string | undefined;
}

const SYSTEM: AuditActor = { type: 'system', label: 'formgate' };

/**
 * Who is acting in the current request or command. Set once by the entry point (the dashboard,
 * the management API, the CLI), read by the audit service when a change is recorded, so services
 * need not pass the actor through every call. It is resolved when read: the session or the API
 * key is known only after the context was entered.
 */
const storage = new AsyncLocalStorage<() => ActingParty>();

/** Runs `fn` (and everything it starts) with `resolve` telling who acts. */
export function runAsActor<T>(resolve: () => ActingParty, fn: () => T): T {
  return storage.run(resolve, fn);
}

/** The actor of the current context (Formgate itself outside any), with the client's address. */
export function currentActor(): AuditActor {
  const party = storage.getStore()?.();
  const actor = party?.actor ?? SYSTEM;
  const address = party?.address;
  return address && (actor.type === 'account' || actor.type === 'user' || actor.type === 'api_key') && !actor.address ? { ...actor, address } : actor;
}

/** The client address of the current request, if any (for events whose actor is given). */
export function currentAddress(): string | undefined {
  return storage.getStore()?.().address;
}
