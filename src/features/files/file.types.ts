import type { FileRef } from '../../platform/lib/file-links.js';
import type { FileRow } from '../../platform/db/schema.js';

/** A submission's files as they arrive (FileService.startUpload): the submit path fills it and hands it back to be scanned and attached. */
export type { UploadBatch } from './upload-batch.js';

/** Whether a file's content was checked by clamd: `unscanned` waits for a later scan. */
export type ScanState = 'clean' | 'unscanned' | 'malware';

/** A stored file as the service knows it. */
export interface StoredFile {
  id: string;
  accountId: string;
  formId: string;
  /** Null while its upload is in progress. */
  submissionId: string | null;
  field: string;
  name: string;
  size: number;
  type: string;
  storageKey: string;
  scanState: ScanState;
  createdAt: string;
}

/** A file as a submission's page lists it. */
export interface ListedFile extends StoredFile {
  /** Not served yet: clamd has still to scan it clean. */
  beingScanned: boolean;
}

export function fileRowToStoredFile(row: FileRow): StoredFile {
  return {
    id: row.id,
    accountId: row.account_id,
    formId: row.form_id,
    submissionId: row.submission_id,
    field: row.field,
    name: row.name,
    size: Number(row.size),
    type: row.type,
    storageKey: row.storage_key,
    scanState: row.scan_state === 'unscanned' || row.scan_state === 'malware' ? row.scan_state : 'clean',
    createdAt: row.created_at,
  };
}

export function storedFileToFileRef(file: Pick<StoredFile, 'id' | 'name' | 'size' | 'type'>): FileRef {
  return { id: file.id, name: file.name, size: file.size, type: file.type };
}
