import type { FilesConfig } from '../config.js';
import type { FileStorage } from './file-storage.js';
import { LocalFileStorage } from './local-file-storage.js';
import { S3FileStorage } from './s3-file-storage.js';

/** The storage FILES_STORAGE names. */
export function createFileStorage(files: FilesConfig): FileStorage {
  return files.s3 ? new S3FileStorage(files.s3) : new LocalFileStorage(files.dir);
}
