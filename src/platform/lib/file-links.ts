import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a link in an outbound message lets its file be downloaded. */
export const FILE_LINK_LIFETIME_SECONDS = 7 * 24 * 60 * 60;

const signatureOf = (key: Buffer, fileId: string, expires: number): string =>
  createHmac('sha256', key).update(`file\n${fileId}\n${expires}`).digest('base64url');

/** `{BASE_URL}/v1/files/<id>?expires=<unix>&signature=<hmac>` (docs/files.md, Downloads). */
export function signedFileUrl(baseUrl: string, key: Buffer, fileId: string, expires: number): string {
  return `${baseUrl}/v1/files/${encodeURIComponent(fileId)}?expires=${expires}&signature=${signatureOf(key, fileId, expires)}`;
}

/** True when the signature is this instance's for the file and expiry, and the expiry is ahead. */
export function fileLinkIsValid(key: Buffer, fileId: string, expires: string, signature: string, nowSeconds: number): boolean {
  if (!/^\d{1,12}$/.test(expires)) return false;
  const at = Number(expires);
  if (at <= nowSeconds) return false;
  const expected = Buffer.from(signatureOf(key, fileId, at));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** What a submission's payload holds of a stored file (docs/files.md). */
export interface FileRef {
  id: string;
  name: string;
  size: number;
  type: string;
}

/** A payload value that names a stored file: `{ file: {id, name, size, type} }`; outbound messages add `url`. */
export interface FileValue {
  file: FileRef & { url?: string };
}

export function isFileValue(value: unknown): value is FileValue {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const file = (value as { file?: unknown }).file;
  return file !== null && typeof file === 'object' && typeof (file as { id?: unknown }).id === 'string';
}

/** Cheap test on the stored JSON text before any parse: payloads without files skip the rewrite. */
export const mayHoldFiles = (payloadJson: string): boolean => payloadJson.includes('{"file":{');

/**
 * A copy of the payload where each file value carries `url` (a signed download link). With no
 * `link` (a spam submission), files are named but never linked.
 */
export function withFileLinks<T extends Record<string, unknown>>(payload: T, link: ((fileId: string) => string) | undefined): T {
  const linked = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(linked);
    if (!isFileValue(value)) return value;
    const { id, name, size, type } = value.file;
    return { file: { id, name, size, type, ...(link ? { url: link(id) } : {}) } };
  };
  const copy = Object.create(null) as Record<string, unknown>;
  for (const [name, value] of Object.entries(payload)) copy[name] = linked(value);
  return copy as T;
}

/** How a file value reads in plain text (email, chat): its name, size and link. */
export function describeFileValue(value: FileValue): string {
  const { name, size, url } = value.file;
  return `${name} (${formatBytes(size)})${url ? ` ${url}` : ''}`;
}

const BYTE_UNITS = ['KiB', 'MiB', 'GiB', 'TiB'] as const;

/** A size in binary units as people read them: 512 B, 2 KiB, 1.5 MiB (one decimal at most, none when whole). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  // Rounded down: a limit read as "10 MiB" must never be more than the limit.
  const shown = Math.floor(value * 10) / 10;
  return `${Number.isInteger(shown) ? shown.toFixed(0) : shown.toFixed(1)} ${BYTE_UNITS[unit]}`;
}

const UNIT_BYTES: Readonly<Record<string, number>> = { b: 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3 };

/**
 * A size as people type it: "10 MiB", "512 KiB", "1.5 MB", "2048". KB, MB and GB count in 1024s,
 * as the page shows sizes. Undefined when it is not one.
 */
export function parseByteSize(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  if (!match) return undefined;
  const factor = match[2] === '' ? 1 : UNIT_BYTES[match[2]!.toLowerCase()];
  if (factor === undefined) return undefined;
  const bytes = Math.floor(Number(match[1]) * factor);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** Gives a function that signs links for the next 7 days (FileService.linker): how channels link files without knowing the service. */
export type FileLinker = () => Promise<(fileId: string) => string>;

/** The payload as outbound messages carry it: file values with signed links, or unlinked for spam. */
export async function linkedPayload(payloadJson: string, linker: FileLinker | undefined, spam = false): Promise<Record<string, unknown>> {
  const payload = JSON.parse(payloadJson) as Record<string, unknown>;
  if (!linker || !mayHoldFiles(payloadJson)) return payload;
  return withFileLinks(payload, spam ? undefined : await linker());
}
