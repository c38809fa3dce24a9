import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomBase62 } from '../../platform/lib/ids.js';
import type { FileStorage } from './file-storage.js';

const SAFE_KEY = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

/**
 * Files in a folder (FILES_DIR). A file is written under a temporary name beside its final one
 * and renamed once complete, so a reader never sees half a file.
 */
export class LocalFileStorage implements FileStorage {
  private readonly root: string;

  constructor(dir: string) {
    this.root = resolve(dir);
  }

  get description(): string {
    return `local folder ${this.root}`;
  }

  private pathOf(key: string): string {
    if (!SAFE_KEY.test(key)) throw new Error('invalid storage key');
    return join(this.root, key);
  }

  async put(key: string, content: Readable): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.${randomBase62(8)}.part`;
    try {
      await pipeline(content, createWriteStream(partial, { flags: 'wx' }));
      await rename(partial, path);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
  }

  async get(key: string): Promise<Readable | undefined> {
    const stream = createReadStream(this.pathOf(key));
    return new Promise((settle, reject) => {
      stream.once('open', () => settle(stream));
      stream.once('error', (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? settle(undefined) : reject(err)));
    });
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async close(): Promise<void> {}
}
