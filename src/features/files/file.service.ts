import type { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../platform/config.js';
import type { DatabaseHandle } from '../../platform/db/database.js';
import { notFound } from '../../platform/errors.js';
import type { Form } from '../forms/form.types.js';
import { FILE_LINK_LIFETIME_SECONDS, fileLinkIsValid, signedFileUrl } from '../../platform/lib/file-links.js';
import { allowedFileTypes, describeFileTypes } from '../../platform/lib/file-types.js';
import { isoMinus, nowIso } from '../../platform/lib/time.js';
import type { InstanceSecretService } from '../secrets/instance-secret.service.js';
import { FileScans } from './file-scans.js';
import type { FileStorage } from './file-storage.js';
import {
  attachFileRow,
  deleteFileRows,
  findCommittedFileRow,
  findDetachedFileRows,
  findFileRowsBySubmissionIds,
  findFileRowsOfForm,
  growFileRow,
  listFileRowsAfter,
  insertFileRow,
  lockFileQuotaOfAccount,
  setFileRowSize,
  sumFileBytesOfAccount,
} from './file.repository.js';
import { fileRowToStoredFile, type ListedFile, type ScanState, type StoredFile } from './file.types.js';
import { UploadBatch, type UploadedFile } from './upload-batch.js';

/** An upload abandoned by a crash is removed once this old: swept every 10 minutes, within the hour (docs/files.md). */
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

/** File rows read at a time by the copy. */
const COPY_PAGE = 500;

/**
 * Uploaded files: receiving them on the submit path within the account's quota, attaching
 * them to their submission, serving them (with clamd, only once scanned clean), signing links
 * to them, and removing them once their submission is gone, never before. A sweeper removes
 * what a crash left behind and scans again what clamd could not scan.
 */
export class FileService {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;
  private readonly scans: FileScans;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly config: Config,
    readonly storage: FileStorage,
    private readonly instanceSecrets: InstanceSecretService,
    private readonly logger: FastifyBaseLogger,
  ) {
    this.scans = new FileScans(handle.db, storage, config.clamdUrl, logger, (files) => this.removeFiles(files));
  }

  start(): void {
    const run = () => void this.sweep().catch((err: unknown) => this.logger.warn({ err }, 'file sweep failed'));
    run();
    this.timer = setInterval(run, SWEEP_INTERVAL_MS);
    this.timer.unref();
    this.scans.start();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.sweeping?.catch(() => undefined);
    await this.scans.close();
    await this.storage.close();
  }

  /**
   * A batch for one submission's files, or undefined when the form does not keep files.
   * `contentLength` is the request's header, when it has one.
   */
  startUpload(form: Form, contentLength?: string): UploadBatch | undefined {
    if (form.files !== 'store') return undefined;
    const declared = Number(contentLength);
    return new UploadBatch(
      {
        accountId: form.accountId,
        formId: form.id,
        reserve: (file, wanted, atLeast) => this.reserve(form, file, wanted, atLeast),
        settle: (file) => setFileRowSize(this.handle.db, file.id, file.size),
        store: (key, body) => this.storage.put(key, body),
        remove: (files) => this.removeFiles(files.map((f) => ({ id: f.id, storageKey: f.storageKey }))),
      },
      {
        maxFiles: form.maxFiles,
        maxFileBytes: Math.min(form.maxFileBytes, this.config.files.maxBytes),
        maxTotalBytes: form.maxTotalBytes,
        allowedTypes: () => allowedTypesOf(form),
        acceptedTypes: () => describeFileTypes(form.fileTypes),
      },
      contentLength !== undefined && Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined,
    );
  }

  /**
   * Takes up to `wanted` bytes of the account's quota for the file, or all that is left when at
   * least `atLeast` is; 0 otherwise. The file's row holds what it reserved (its size), so the
   * rows' sum is what is used and reserved together, whatever happens: a refused or failed
   * upload gives its bytes back by deleting its rows, and the rows a crash leaves are removed
   * by the sweeper.
   */
  private reserve(form: Form, file: UploadedFile, wanted: number, atLeast: number): Promise<number> {
    return this.handle.db.transaction().execute(async (trx) => {
      await lockFileQuotaOfAccount(trx, this.handle.dialect, form.accountId);
      const left = this.config.files.quotaBytes - (await sumFileBytesOfAccount(trx, form.accountId));
      const granted = Math.min(wanted, left);
      if (granted < atLeast) return 0;
      if (file.recorded) await growFileRow(trx, file.id, granted);
      else {
        await insertFileRow(trx, {
          id: file.id,
          account_id: form.accountId,
          form_id: form.id,
          submission_id: null,
          field: file.field,
          name: file.name,
          size: granted,
          type: file.type,
          storage_key: file.storageKey,
          created_at: nowIso(),
        });
      }
      return granted;
    });
  }

  /**
   * Scans the batch's files with clamd when CLAMD_URL is set. A detected file is removed at once
   * (never kept); `malware` when any was. Files clamd could not scan stay `unscanned`.
   */
  scan(batch: UploadBatch): Promise<{ malware: boolean; states: Map<string, ScanState> }> {
    return this.scans.scanBatch(batch);
  }

  /**
   * Names the submission the batch's files belong to, just before it is written: from then on
   * only its deletion (or, should it never be written, the sweeper) removes them.
   */
  async attach(batch: UploadBatch, submissionId: string, states: Map<string, ScanState>): Promise<void> {
    for (const file of batch.files) {
      const scanState = states.get(file.id) ?? 'clean';
      if (scanState === 'malware') continue;
      await attachFileRow(this.handle.db, file.id, { submissionId, size: file.size, type: file.type, scanState });
    }
  }

  /** The files of a submission the caller may see (the dashboard checked the account). */
  async listFilesOfSubmission(submissionId: string): Promise<ListedFile[]> {
    const files = (await findFileRowsBySubmissionIds(this.handle.db, [submissionId])).map(fileRowToStoredFile);
    return files.map((file) => ({ ...file, beingScanned: !this.scans.servable(file) }));
  }

  /** A committed file of the account (the management API and the dashboard); another account's is not_found. */
  async getFileOfAccount(accountId: string, fileId: string): Promise<FileDownload> {
    const row = await findCommittedFileRow(this.handle.db, fileId);
    if (!row || row.account_id !== accountId) throw notFound('File');
    return this.download(fileRowToStoredFile(row));
  }

  /** A file through a signed link: a wrong, tampered or expired link is not_found, as is a spam submission's file. */
  async getFileByLink(fileId: string, expires: string, signature: string): Promise<FileDownload> {
    const key = await this.linkKey();
    if (!fileLinkIsValid(key, fileId, expires, signature, Math.floor(Date.now() / 1000))) throw notFound('File');
    const row = await findCommittedFileRow(this.handle.db, fileId);
    if (!row || row.is_spam === 1) throw notFound('File');
    return this.download(fileRowToStoredFile(row));
  }

  private async download(file: StoredFile): Promise<FileDownload> {
    if (!this.scans.servable(file)) throw this.scans.notScanned();
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
      const rows = await listFileRowsAfter(this.handle.db, after, COPY_PAGE);
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
    const rows = await findFileRowsBySubmissionIds(this.handle.db, submissionIds);
    await this.removeFiles(rows.map((r) => ({ id: r.id, storageKey: r.storage_key })));
  }

  /** After a form was deleted (committed): every file it held. */
  async removeFilesOfForm(formId: string): Promise<void> {
    const rows = await findFileRowsOfForm(this.handle.db, formId);
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
    await deleteFileRows(this.handle.db, removed);
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
      const rows = await findDetachedFileRows(this.handle.db, before, SWEEP_PAGE);
      if (rows.length === 0) break;
      await this.removeFiles(rows.map((r) => ({ id: r.id, storageKey: r.storage_key })));
      removed += rows.length;
      if (rows.length < SWEEP_PAGE) break;
    }
    await this.scans.rescan();
    if (removed > 0) this.logger.info({ removed }, 'removed files no submission holds');
    return removed;
  }
}
