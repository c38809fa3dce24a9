import type { Readable } from 'node:stream';

/**
 * Where file contents live: a local folder or an S3-compatible store. Keys are made by the
 * service (`<accountId>/<fileId>`), never from client input.
 */
export interface FileStorage {
  /** What the start banner says: the kind and where. */
  readonly description: string;
  /** Stores the stream's bytes under the key; rejects (and keeps nothing) when the stream fails. */
  put(key: string, content: Readable): Promise<void>;
  /** The stored bytes; undefined when nothing is stored under the key. */
  get(key: string): Promise<Readable | undefined>;
  /** Removes the key; nothing stored under it is no error. */
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

