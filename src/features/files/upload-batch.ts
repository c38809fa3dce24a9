import { PassThrough, type Readable } from 'node:stream';
import { AppError, type FieldErrors } from '../../platform/errors.js';
import { cleanFileName, textTypeOf } from '../../platform/lib/file-types.js';
import { newId } from '../../platform/lib/ids.js';
import { shortened } from '../../platform/lib/text.js';
import { formatBytes, type FileRef } from '../../platform/lib/file-links.js';
import { fillParams, messages } from '../../platform/i18n/i18n.js';

/** Bytes read before a file's type is decided: enough for every magic number file-type knows, and for ZIP-based office files. */
const HEAD_BYTES = 64 * 1024;

export interface UploadLimits {
  maxFiles: number;
  maxFileBytes: number;
  maxTotalBytes: number;
  /** Made when the first file arrives: a text-only submission never pays for it. */
  allowedTypes: () => ReadonlySet<string>;
  /** The accepted types in words, for the visitor told that a file is not one of them. */
  acceptedTypes: () => string;
}

/** One file of the batch, from its first byte until it is attached or discarded. */
export interface UploadedFile {
  id: string;
  storageKey: string;
  field: string;
  name: string;
  size: number;
  /** Bytes of the account's quota this file holds (its row's size): never less than `size`. */
  reserved: number;
  type: string;
  /** True once its row exists (the content may be stored, partly or whole). */
  recorded: boolean;
  body: PassThrough | undefined;
}

/** What the batch needs from the service: rows, storage and the account's quota. */
export interface UploadSink {
  accountId: string;
  formId: string;
  /**
   * Takes up to `wanted` more bytes of the account's quota for the file (all that is left when
   * less), atomically against every other upload of the account, and returns how many; 0,
   * taking nothing, when not even `atLeast` is left. The first call writes the file's row (no
   * submission yet), so every stored byte is counted by a row.
   */
  reserve(file: UploadedFile, wanted: number, atLeast: number): Promise<number>;
  /** Gives back what the file reserved beyond its size, once it is complete. */
  settle(file: UploadedFile): Promise<void>;
  store(key: string, body: Readable): Promise<void>;
  /** Deletes what was stored and the rows (which frees what they reserved). */
  remove(files: UploadedFile[]): Promise<void>;
}

/**
 * A refusal whose text names what it is about (the file, the limit), in English here and in the
 * visitor's language through its catalogue key and values.
 */
function namedTooLarge(key: 'error.file_too_large' | 'error.files_too_large' | 'error.too_many_files', params: Record<string, string>): AppError {
  return new AppError('payload_too_large', fillParams(messages('en')[key], params), { textKeys: { message: key, params } });
}

function typeRefused(field: string, name: string, types: string): AppError {
  const fieldErrors: FieldErrors = Object.create(null) as FieldErrors;
  const params = { name, types };
  Object.defineProperty(fieldErrors, shortened(field), { value: fillParams(messages('en')['field.file_type'], params), enumerable: true });
  return new AppError('validation_failed', 'A file is not of a type this form accepts.', { fieldErrors, textKeys: { fields: { '*': 'field.file_type' }, params } });
}

const tooLarge = (message: string) => new AppError('payload_too_large', message);

/**
 * Without a declared length, the first reservation of a file that goes on past its head; each
 * next one takes as much again as the file holds.
 */
const FIRST_STEP_BYTES = 256 * 1024;

const overQuota = () => tooLarge('This account has used its storage quota for files: the files were not stored.');

/**
 * The files of one submission while its multipart body is read: each is checked by its first
 * bytes, then streamed to storage as it arrives (never held whole), with its size counted
 * against the form's limits. No byte is written before the account's quota was reserved for
 * it, so parallel uploads cannot together pass the quota. Until `attached` is set by the
 * submit path, `discard` removes everything it stored.
 */
export class UploadBatch {
  readonly files: UploadedFile[] = [];
  /** Set once the submission holding the files was written: they are no longer this batch's to remove. */
  attached = false;
  private totalBytes = 0;
  private discarded: Promise<void> | undefined;

  /**
   * `declaredBytes`: the request's Content-Length when it has one. No file can be longer than
   * the body, so a file reserves at once what the body could hold of it: parallel uploads then
   * each take their whole size or are refused early, instead of all taking a part of the quota
   * and all failing for want of the rest.
   */
  constructor(
    private readonly sink: UploadSink,
    private readonly limits: UploadLimits,
    private readonly declaredBytes?: number,
  ) {}

  /**
   * Reads one file part to its end and stores it. Undefined for an empty file input (no name
   * and no bytes, or no bytes at all): no file. Rejects with the AppError the client gets when a
   * limit is exceeded or the type is not accepted; the caller then discards the batch.
   */
  async receive(field: string, clientName: string | undefined, stream: Readable): Promise<FileRef | undefined> {
    const head: Buffer[] = [];
    let headBytes = 0;
    let ended = false;
    // The head, or the whole file when it is smaller.
    for await (const chunk of iterateUntil(stream, () => headBytes >= HEAD_BYTES)) {
      head.push(chunk);
      headBytes += chunk.length;
    }
    ended = stream.readableEnded;
    if (headBytes === 0) return undefined;
    if (this.files.length >= this.limits.maxFiles) {
      stream.resume();
      throw namedTooLarge('error.too_many_files', { count: String(this.limits.maxFiles) });
    }
    const first = Buffer.concat(head);
    const type = await typeOf(first, ended);
    if (type === undefined || !this.limits.allowedTypes().has(type)) {
      stream.resume();
      throw typeRefused(field, cleanFileName(clientName ?? ''), this.limits.acceptedTypes());
    }
    const id = newId('fil');
    const file: UploadedFile = {
      id,
      storageKey: `${this.sink.accountId}/${id}`,
      field,
      name: cleanFileName(clientName ?? ''),
      size: 0,
      reserved: 0,
      type,
      recorded: false,
      body: undefined,
    };
    this.files.push(file);
    this.count(file, first.length);
    await this.reserveFor(file, ended);
    const body = new PassThrough({ highWaterMark: HEAD_BYTES });
    file.body = body;
    const stored = this.sink.store(file.storageKey, body);
    // Awaited below; a discard while this file's bytes are still read must not count as unhandled.
    stored.catch(() => undefined);
    try {
      await writeTo(body, first);
      if (!ended) {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          this.count(file, chunk.length);
          await this.reserveFor(file, false);
          await writeTo(body, chunk);
        }
      }
      body.end();
    } catch (err) {
      body.destroy(err as Error);
      await stored.catch(() => undefined);
      throw err;
    }
    await stored;
    file.body = undefined;
    if (file.reserved > file.size) await this.sink.settle(file);
    return { id: file.id, name: file.name, size: file.size, type: file.type };
  }

  /** Removes every file stored so far (at most once); in-flight uploads are stopped first. */
  discard(): Promise<void> {
    if (this.attached || this.files.length === 0) return Promise.resolve();
    this.discarded ??= (async () => {
      for (const file of this.files) file.body?.destroy(new Error('upload discarded'));
      await this.sink.remove(this.files.filter((f) => f.recorded));
    })();
    return this.discarded;
  }

  private count(file: UploadedFile, bytes: number): void {
    file.size += bytes;
    this.totalBytes += bytes;
    if (file.size > this.limits.maxFileBytes) throw namedTooLarge('error.file_too_large', { name: file.name, limit: formatBytes(this.limits.maxFileBytes) });
    if (this.totalBytes > this.limits.maxTotalBytes) {
      throw namedTooLarge('error.files_too_large', { name: file.name, limit: formatBytes(this.limits.maxTotalBytes) });
    }
  }

  /**
   * Reserves quota for the file's bytes received so far, before they are written. A file still
   * arriving reserves ahead (what the body could still hold of it, or without a declared length
   * a step that doubles), so a large file costs a few reservations rather than one per chunk.
   * `complete` when no more of the file will come.
   */
  private async reserveFor(file: UploadedFile, complete: boolean): Promise<void> {
    const needed = file.size - file.reserved;
    if (needed <= 0) return;
    const earlier = this.totalBytes - file.size;
    // Past these the file is refused anyway: reserving beyond them could never be used.
    const bound = Math.min(this.limits.maxFileBytes, this.limits.maxTotalBytes - earlier, (this.declaredBytes ?? Infinity) - earlier);
    const step = this.declaredBytes === undefined ? Math.max(file.reserved, FIRST_STEP_BYTES) : Infinity;
    const wanted = complete ? needed : Math.max(needed, Math.min(bound - file.reserved, step));
    const granted = await this.sink.reserve(file, wanted, needed);
    if (granted === 0) throw overQuota();
    file.recorded = true;
    file.reserved += granted;
    if (this.discarded) {
      // Discarded while this reservation was under way: its row was not there to remove.
      await this.sink.remove([file]);
      throw new Error('upload discarded');
    }
  }
}

let fileType: Promise<typeof import('file-type')> | undefined;

/** The type its magic bytes tell, or for content without one, plain text or CSV (never markup or script). */
async function typeOf(head: Buffer, complete: boolean): Promise<string | undefined> {
  // file-type, with its table of every format's signature, loads with the first file received.
  fileType ??= import('file-type');
  const detected = await (await fileType).fileTypeFromBuffer(head);
  if (detected) return detected.mime;
  return textTypeOf(head, complete);
}

/** Chunks of the stream until `enough` says so (the rest stays unread) or the stream ends. */
async function* iterateUntil(stream: Readable, enough: () => boolean): AsyncGenerator<Buffer> {
  while (!enough()) {
    const chunk = stream.read() as Buffer | null;
    if (chunk !== null) {
      yield chunk;
      continue;
    }
    if (stream.readableEnded) return;
    await new Promise<void>((settle, reject) => {
      const done = () => {
        stream.off('readable', done);
        stream.off('end', done);
        stream.off('error', fail);
        settle();
      };
      const fail = (err: Error) => {
        stream.off('readable', done);
        stream.off('end', done);
        reject(err);
      };
      stream.once('readable', done);
      stream.once('end', done);
      stream.once('error', fail);
    });
  }
}

/** Writes with backpressure: waits for the storage to take the chunk when its buffer is full. */
function writeTo(body: PassThrough, chunk: Buffer): Promise<void> {
  if (body.destroyed) return Promise.reject(body.errored ?? new Error('upload stopped'));
  if (body.write(chunk)) return Promise.resolve();
  return new Promise((settle, reject) => {
    const drained = () => {
      body.off('close', closed);
      settle();
    };
    const closed = () => {
      body.off('drain', drained);
      reject(body.errored ?? new Error('upload stopped'));
    };
    body.once('drain', drained);
    body.once('close', closed);
  });
}
