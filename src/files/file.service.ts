import type { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Executor } from '../db/database.js';
import { notFound } from '../errors.js';
import type { Form } from '../forms/form.types.js';
import { FILE_LINK_LIFETIME_SECONDS, fileLinkIsValid, signedFileUrl } from '../lib/file-links.js';
import { allowedFileTypes } from '../lib/file-types.js';
import { isoMinus, nowIso } from '../lib/time.js';
import type { InstanceSecretService } from '../secrets/instance-secret.service.js';
import type { ClamdScanner, ScanVerdict } from './clamd.scanner.js';
import type { FileStorage } from './file-storage.js';
import {
  attachFileRow,
  deleteFileRows,
  findCommittedFileRow,
  findDetachedFileRows,
  findFileRowsBySubmissionIds,
  findFileRowsOfForm,
  findUnscannedFileRows,
  listFileRowsAfter,
  insertFileRow,
  setFileScanState,
  sumFileBytesOfAccount,
} from './file.repository.js';
import { fileRowToStoredFile, type ScanState, type StoredFile } from './file.types.js';
import { UploadBatch, type UploadedFile } from './upload-batch.js';

/** An upload abandoned by a crash is removed once it is this old (contract: within an hour). */
const ABANDONED_AFTER_MS = 30 * 60 * 1000;
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;
const SWEEP_PAGE = 200;

/** Each cached form's allowed types, computed once per form read. */
const allowedTypesByForm = new WeakMap<Form, ReadonlySet<string>>();

function allowedTypesOf(form: Form): ReadonlySet<string> {
  let allowed = allowedTypesByForm.get(form);
  if (!allowed) allowedTypesByForm.set(form, (allowed = allowedFileTypes(form.fileTypes)));
  return allowed;
}

/** A file to download: its description and its content. */
export interface FileDownload {
  file: StoredFile;
  content: Readable;
}

/**
 * Uploaded files (contract section 18): receiving them on the submit path, attaching them to
 * their submission, serving them, signing links to them, and removing them once their
 * submission is gone, never before. A sweeper removes what a crash left behind and scans
 * again what clamd could not scan.
 */
/** How long clamd may take over one submission's files before they are left `unscanned`. */
const SUBMIT_SCAN_BUDGET_MS = 5_000;

/** File rows read at a time by the copy. */
const COPY_PAGE = 500;

export class FileService {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;

  constructor(
    private readonly db: Executor,
    private readonly config: Config,
    readonly storage: FileStorage,
    private readonly scanner: ClamdScanner | undefined,
    private readonly instanceSecrets: InstanceSecretService,
    private readonly logger: FastifyBaseLogger,
  ) {}

  start(): void {
    const run = () => void this.sweep().catch((err: unknown) => this.logger.warn({ err }, 'file sweep failed'));
    run();
    this.timer = setInterval(run, SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.sweeping?.catch(() => undefined);
    await this.storage.close();
  }

  /** A batch for one submission's files, or undefined when the form does not keep files. */
  startUpload(form: Form): UploadBatch | undefined {
    if (form.files !== 'store') return undefined;
    return new UploadBatch(
      {
        accountId: form.accountId,
        formId: form.id,
        record: (file) => this.record(form, file),
        store: (key, body) => this.storage.put(key, body),
        remainingQuota: async () => this.config.files.quotaBytes - (await sumFileBytesOfAccount(this.db, form.accountId)),
        remove: (files) => this.removeFiles(files.map((f) => ({ id: f.id, storageKey: f.storageKey }))),
      },
      {
        maxFiles: form.maxFiles,
        maxFileBytes: Math.min(form.maxFileBytes, this.config.files.maxBytes),
        maxTotalBytes: form.maxTotalBytes,
        allowedTypes: () => allowedTypesOf(form),
      },
    );
  }

  private async record(form: Form, file: UploadedFile): Promise<void> {
    await insertFileRow(this.db, {
      id: file.id,
      account_id: form.accountId,
      form_id: form.id,
      submission_id: null,
      field: file.field,
      name: file.name,
      size: 0,
      type: file.type,
      storage_key: file.storageKey,
      created_at: nowIso(),
    });
  }

  /**
   * Scans the batch's files with clamd when CLAMD_URL is set. A detected file is removed at once
   * (never kept); `malware` when any was. Files clamd could not scan stay `unscanned`.
   */
  async scan(batch: UploadBatch): Promise<{ malware: boolean; states: Map<string, ScanState> }> {
    const states = new Map<string, ScanState>();
    let malware = false;
    // One budget for the whole submission: a slow or stalled clamd delays its answer by at most
    // this, and what it did not scan in time is scanned later by the sweeper.
    const deadline = Date.now() + SUBMIT_SCAN_BUDGET_MS;
    for (const file of batch.files) {
      const left = deadline - Date.now();
      const verdict = left > 0 ? await this.scanStored(file.storageKey, left) : 'unavailable';
      if (verdict === 'malware') {
        malware = true;
        states.set(file.id, 'malware');
        await this.removeFiles([{ id: file.id, storageKey: file.storageKey }]);
      } else states.set(file.id, verdict === 'clean' ? 'clean' : 'unscanned');
    }
    return { malware, states };
  }

  private async scanStored(key: string, timeoutMs?: number): Promise<ScanVerdict> {
    if (!this.scanner) return 'clean';
    const content = await this.storage.get(key);
    if (!content) return 'unavailable';
    return this.scanner.scan(content, timeoutMs);
  }

  /**
   * Names the submission the batch's files belong to, just before it is written: from then on
   * only its deletion (or, should it never be written, the sweeper) removes them.
   */
  async attach(batch: UploadBatch, submissionId: string, states: Map<string, ScanState>): Promise<void> {
    for (const file of batch.files) {
      const scanState = states.get(file.id) ?? 'clean';
      if (scanState === 'malware') continue;
      await attachFileRow(this.db, file.id, { submissionId, size: file.size, type: file.type, scanState });
    }
  }

  /** The files of a submission the caller may see (the dashboard checked the account). */
  async listFilesOfSubmission(submissionId: string): Promise<StoredFile[]> {
    return (await findFileRowsBySubmissionIds(this.db, [submissionId])).map(fileRowToStoredFile);
  }

  /** A committed file of the account (the management API and the dashboard); another account's is not_found. */
  async getFileOfAccount(accountId: string, fileId: string): Promise<FileDownload> {
    const row = await findCommittedFileRow(this.db, fileId);
    if (!row || row.account_id !== accountId) throw notFound('File');
    return this.download(fileRowToStoredFile(row));
  }

  /** A file through a signed link: a wrong, tampered or expired link is not_found, as is a spam submission's file. */
  async getFileByLink(fileId: string, expires: string, signature: string): Promise<FileDownload> {
    const key = await this.linkKey();
    if (!fileLinkIsValid(key, fileId, expires, signature, Math.floor(Date.now() / 1000))) throw notFound('File');
    const row = await findCommittedFileRow(this.db, fileId);
    if (!row || row.is_spam === 1) throw notFound('File');
    return this.download(fileRowToStoredFile(row));
  }

  private async download(file: StoredFile): Promise<FileDownload> {
    const content = await this.storage.get(file.storageKey);
    if (!content) throw notFound('File');
    return { file, content };
  }

  /** Makes signed links valid for 7 days; the key is read once and kept. */
  async linker(): Promise<(fileId: string) => string> {
    const key = await this.linkKey();
    const expires = Math.floor(Date.now() / 1000) + FILE_LINK_LIFETIME_SECONDS;
    return (fileId) => signedFileUrl(this.config.baseUrl, key, fileId, expires);
  }

  private linkKey(): Promise<Buffer> {
    return this.instanceSecrets.getSecret('file-links');
  }

  /**
   * `formgate files copy --to s3`: every stored file's content from `from` into `to`, under the
   * same key, so the rows stay as they are and FILES_STORAGE=s3 finds each file. A key already in
   * `to` is written again with the same bytes, so a copy that stopped can be run again. Returns
   * the files copied and those whose content `from` does not hold.
   */
  async copyFiles(from: FileStorage, to: FileStorage): Promise<{ copied: number; missing: string[] }> {
    let copied = 0;
    const missing: string[] = [];
    for (let after = ''; ; ) {
      const rows = await listFileRowsAfter(this.db, after, COPY_PAGE);
      if (rows.length === 0) return { copied, missing };
      for (const row of rows) {
        const content = await from.get(row.storage_key);
        if (content === undefined) missing.push(row.id);
        else {
          await to.put(row.storage_key, content);
          copied++;
        }
      }
      after = rows.at(-1)!.id;
    }
  }

  /** After submissions were deleted (committed): their files' contents, then their rows. */
  async removeFilesOfSubmissions(submissionIds: string[]): Promise<void> {
    const rows = await findFileRowsBySubmissionIds(this.db, submissionIds);
    await this.removeFiles(rows.map((r) => ({ id: r.id, storageKey: r.storage_key })));
  }

  /** After a form was deleted (committed): every file it held. */
  async removeFilesOfForm(formId: string): Promise<void> {
    const rows = await findFileRowsOfForm(this.db, formId);
    await this.removeFiles(rows.map((r) => ({ id: r.id, storageKey: r.storage_key })));
  }

  /** The content first, then the row: a row never points at nothing it could still find. */
  private async removeFiles(files: Array<{ id: string; storageKey: string }>): Promise<void> {
    const removed: string[] = [];
    for (const file of files) {
      try {
        await this.storage.delete(file.storageKey);
        removed.push(file.id);
      } catch (err) {
        // The row stays, so the sweeper tries again.
        this.logger.warn({ err, fileId: file.id }, 'a stored file could not be deleted');
      }
    }
    await deleteFileRows(this.db, removed);
  }

  /**
   * Removes files whose submission does not exist (abandoned uploads, leftovers of a crash
   * during a deletion), and scans again files clamd could not scan. Returns how many it removed.
   */
  sweep(now = nowIso()): Promise<number> {
    this.sweeping ??= this.sweepOnce(now).finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  private async sweepOnce(now: string): Promise<number> {
    let removed = 0;
    const before = isoMinus(now, ABANDONED_AFTER_MS);
    for (;;) {
      const rows = await findDetachedFileRows(this.db, before, SWEEP_PAGE);
      if (rows.length === 0) break;
      await this.removeFiles(rows.map((r) => ({ id: r.id, storageKey: r.storage_key })));
      removed += rows.length;
      if (rows.length < SWEEP_PAGE) break;
    }
    if (this.scanner) await this.scanUnscanned();
    if (removed > 0) this.logger.info({ removed }, 'removed files no submission holds');
    return removed;
  }

  private async scanUnscanned(): Promise<void> {
    for (const row of await findUnscannedFileRows(this.db, SWEEP_PAGE)) {
      const verdict = await this.scanStored(row.storage_key);
      if (verdict === 'unavailable') return;
      if (verdict === 'malware') {
        // A file holding malware is never kept, whenever it is found.
        this.logger.warn({ fileId: row.id, submissionId: row.submission_id }, 'a file scanned later holds malware');
        await this.removeFiles([{ id: row.id, storageKey: row.storage_key }]);
      } else await setFileScanState(this.db, row.id, 'clean');
    }
  }
}
