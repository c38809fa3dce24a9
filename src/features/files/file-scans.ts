import type { FastifyBaseLogger } from 'fastify';
import type { Executor } from '../../platform/db/database.js';
import { AppError } from '../../platform/errors.js';
import type { ClamdScanner, ScanVerdict } from './clamd.scanner.js';
import type { FileStorage } from './file-storage.js';
import { findUnscannedFileRows, setFileScanState } from './file.repository.js';
import type { ScanState, StoredFile } from './file.types.js';
import type { UploadBatch } from './upload-batch.js';

/** How long clamd may take over one submission's files before they are left `unscanned`. */
const SUBMIT_SCAN_BUDGET_MS = 5_000;
/** How often files clamd could not scan are tried again; a download of one is told to wait this long. */
const RESCAN_INTERVAL_MS = 60 * 1000;
const RESCAN_PAGE = 200;

type RemoveFiles = (files: Array<{ id: string; storageKey: string }>) => Promise<void>;

/**
 * clamd's part in the files' life (with CLAMD_URL set): the scan of a submission's files before
 * it is stored, the rule that only a file scanned clean is served, and the rescans of the files
 * clamd could not scan then. Without a scanner every file counts as clean, as it always did.
 */
export class FileScans {
  private timer: NodeJS.Timeout | undefined;
  private rescanning: Promise<void> | undefined;
  private scanner: Promise<ClamdScanner> | undefined;

  constructor(
    private readonly db: Executor,
    private readonly storage: FileStorage,
    /** clamd's address; undefined = files are not scanned. */
    private readonly clamdUrl: string | undefined,
    private readonly logger: FastifyBaseLogger,
    private readonly removeFiles: RemoveFiles,
  ) {}

  /** Unscanned files are not served, so they are tried again more often than the sweep runs. */
  start(): void {
    if (this.clamdUrl === undefined) return;
    this.timer = setInterval(() => void this.rescan().catch((err: unknown) => this.logger.warn({ err }, 'file rescan failed')), RESCAN_INTERVAL_MS);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.rescanning?.catch(() => undefined);
  }

  /** With clamd, only a file scanned clean is served; without it, every file. */
  servable(file: StoredFile): boolean {
    return this.clamdUrl === undefined || file.scanState === 'clean';
  }

  notScanned(): AppError {
    return new AppError('file_not_scanned', 'This file has not been scanned for malware yet. Try again later.', {
      headers: { 'Retry-After': String(RESCAN_INTERVAL_MS / 1000) },
    });
  }

  /** See FileService.scan. */
  async scanBatch(batch: UploadBatch): Promise<{ malware: boolean; states: Map<string, ScanState> }> {
    const states = new Map<string, ScanState>();
    let malware = false;
    // One budget for the whole submission: a slow or stalled clamd delays its answer by at most
    // this, and what it did not scan in time is scanned later.
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

  /** The scanner's module loads with the first scan: an instance without clamd never loads it. */
  private clamd(url: string): Promise<ClamdScanner> {
    this.scanner ??= import('./clamd.scanner.js').then(({ ClamdScanner }) => new ClamdScanner(url));
    return this.scanner;
  }

  private async scanStored(key: string, timeoutMs?: number): Promise<ScanVerdict> {
    if (this.clamdUrl === undefined) return 'clean';
    const scanner = await this.clamd(this.clamdUrl);
    const content = await this.storage.get(key);
    if (!content) return 'unavailable';
    return scanner.scan(content, timeoutMs);
  }

  /** Scans again every file clamd could not scan (one run at a time). */
  rescan(): Promise<void> {
    if (this.clamdUrl === undefined) return Promise.resolve();
    this.rescanning ??= this.clamd(this.clamdUrl).then((scanner) => this.rescanOnce(scanner)).finally(() => {
      this.rescanning = undefined;
    });
    return this.rescanning;
  }

  /**
   * A file clamd refuses or fails on stays unscanned and the run goes on to the next, so one
   * such file never holds back the others; only a clamd that does not answer at all ends the
   * run before it starts.
   */
  private async rescanOnce(scanner: ClamdScanner): Promise<void> {
    if (!(await scanner.ping())) return;
    let failed = 0;
    for (let after = ''; ; ) {
      const rows = await findUnscannedFileRows(this.db, after, RESCAN_PAGE);
      for (const row of rows) {
        const verdict = await this.scanStored(row.storage_key).catch((err: unknown) => {
          this.logger.warn({ err, fileId: row.id }, 'a file could not be read to scan it');
          return 'unavailable' as const;
        });
        if (verdict === 'unavailable') failed++;
        else if (verdict === 'malware') {
          // A file holding malware is never kept, whenever it is found.
          this.logger.warn({ fileId: row.id, submissionId: row.submission_id }, 'a file scanned later holds malware');
          await this.removeFiles([{ id: row.id, storageKey: row.storage_key }]);
        } else await setFileScanState(this.db, row.id, 'clean');
      }
      if (rows.length < RESCAN_PAGE) break;
      after = rows.at(-1)!.id;
    }
    if (failed > 0) this.logger.warn({ failed }, 'clamd could not scan some files: they are not served until it does');
  }
}
