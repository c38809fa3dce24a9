import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isPublicAddress } from './addresses.js';

/** Resolves a host name to its addresses (injectable so tests can play a rebinding DNS). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

class RefusedAddressError extends Error {
  readonly code = 'FORMGATE_REFUSED_ADDRESS';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect that resolves at connect time, keeps only addresses it may
 * contact, and hands exactly those to the socket: the address checked is the address connected
 * to, so a name cannot be rebound to a private address between check and connect.
 */
export function createSafeLookup(resolve: Resolver, allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        const usable = allowPrivate ? addresses : addresses.filter((a) => isPublicAddress(a.address));
        if (usable.length === 0) {
          callback(new RefusedAddressError(`${hostname} resolves to no public address`), []);
          return;
        }
        if (options.all) callback(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, []),
    );
  };
}
