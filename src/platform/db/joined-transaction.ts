import type { Executor, Trx } from './database.js';

/**
 * The open transaction as a database whose `transaction()` joins it instead of opening another.
 * Services built on it open their transactions as usual, and every one of them writes in the
 * caller's: all commit together or none does. Kysely refuses `transaction()` on a transaction,
 * which is why it is answered here; everything else is the transaction's own.
 */
export function joinTransaction(trx: Trx): Executor {
  const joined = {
    execute: <T>(run: (inner: Trx) => Promise<T>): Promise<T> => run(trx),
    setIsolationLevel: () => joined,
    setAccessMode: () => joined,
  };
  return new Proxy(trx, {
    get(target, property) {
      if (property === 'transaction') return () => joined;
      const value: unknown = Reflect.get(target, property, target);
      // Kysely keeps its state in private fields, which only the transaction itself can read.
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
