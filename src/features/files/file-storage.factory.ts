import type { FilesConfig } from '../../platform/config.js';
import type { FileStorage } from './file-storage.js';
import { LocalFileStorage } from './local-file-storage.js';
import { S3FileStorage } from './s3-file-storage.js';

/** The storage FILES_STORAGE names. */
export function createFileStorage(files: FilesConfig): FileStorage {
  return files.storage === 's3' && files.s3 ? new S3FileStorage(files.s3) : new LocalFileStorage(files.dir);
}

/** The two ends of `formgate files copy --to s3`: the local folder and the S3 store S3_* configure. */
export function createCopyStorages(files: FilesConfig): { from: FileStorage; to: FileStorage } {
  if (!files.s3) throw new Error('No S3 store is configured: set S3_BUCKET (and S3_ENDPOINT, S3_REGION, the keys) first.');
  return { from: new LocalFileStorage(files.dir), to: new S3FileStorage(files.s3) };
}
