/**
 * The file types a form may take (docs/files.md), told by content, never by name. Groups
 * name the usual kinds; an entry may also be one exact MIME type.
 */
export const FILE_TYPE_GROUPS: Readonly<Record<string, readonly string[]>> = {
  images: ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp', 'image/tiff', 'image/heic', 'image/heif', 'image/avif'],
  pdf: ['application/pdf'],
  text: ['text/plain'],
  csv: ['text/csv'],
  office: [
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    'application/vnd.oasis.opendocument.text',
    'application/vnd.oasis.opendocument.spreadsheet',
    'application/vnd.oasis.opendocument.presentation',
    'application/msword',
    'application/vnd.ms-excel',
    'application/vnd.ms-powerpoint',
    // The compound file of pre-2007 Word, Excel and PowerPoint: the container is all the bytes tell.
    'application/x-cfb',
    'application/rtf',
  ],
  zip: ['application/zip'],
};

export const DEFAULT_FILE_TYPE_GROUPS = Object.keys(FILE_TYPE_GROUPS);

/**
 * Types never taken whatever a form lists: a browser opening them runs script. Downloads are
 * attachments under a sandbox anyway; this keeps them out of storage too.
 */
const NEVER_TAKEN = new Set(['text/html', 'image/svg+xml', 'application/xml', 'text/xml', 'application/javascript', 'text/javascript', 'application/xhtml+xml']);

const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** A group name or a MIME type (lower-case). */
export function isFileTypeEntry(entry: string): boolean {
  return Object.hasOwn(FILE_TYPE_GROUPS, entry) || (MIME_TYPE.test(entry) && !NEVER_TAKEN.has(entry));
}

/** The MIME types a form's `fileTypes` allows (the default groups when it lists none). */
export function allowedFileTypes(entries: readonly string[]): Set<string> {
  const allowed = new Set<string>();
  for (const entry of entries.length > 0 ? entries : DEFAULT_FILE_TYPE_GROUPS) {
    for (const type of FILE_TYPE_GROUPS[entry] ?? [entry]) if (!NEVER_TAKEN.has(type)) allowed.add(type);
  }
  return allowed;
}

/** Each group as a visitor reads it, on the error page that lists what a form accepts. */
const GROUP_WORDS: Readonly<Record<string, string>> = {
  images: 'images',
  pdf: 'PDF',
  text: 'plain text',
  csv: 'CSV',
  office: 'office documents (Word, Excel, PowerPoint, OpenDocument, RTF)',
  zip: 'ZIP',
};

/**
 * What a browser's file picker offers for each group (`accept`): types and extensions, since
 * pickers match some types only by extension. A hint only: the content decides on arrival.
 */
const GROUP_ACCEPT: Readonly<Record<string, readonly string[]>> = {
  images: ['image/*'],
  pdf: ['application/pdf', '.pdf'],
  text: ['text/plain', '.txt'],
  csv: ['text/csv', '.csv'],
  office: ['.doc', '.docx', '.xls', '.xlsx', '.ppt', '.pptx', '.odt', '.ods', '.odp', '.rtf'],
  zip: ['application/zip', '.zip'],
};

const entriesOrDefault = (entries: readonly string[]) => (entries.length > 0 ? entries : DEFAULT_FILE_TYPE_GROUPS);

/** The types a form's `fileTypes` accepts, in words: "images, PDF, …" (a MIME type as written). */
export function describeFileTypes(entries: readonly string[]): string {
  return entriesOrDefault(entries).map((entry) => GROUP_WORDS[entry] ?? entry).join(', ');
}

/** The `accept` attribute of a file input for a form's `fileTypes`. */
export function fileInputAccept(entries: readonly string[]): string {
  return [...new Set(entriesOrDefault(entries).flatMap((entry) => GROUP_ACCEPT[entry] ?? [entry]))].join(',');
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Markup and script: never plain text, wherever in the first bytes they start. */
const MARKUP = /<\s*(!doctype|html|head|body|script|svg|iframe|object|embed|xml|\?xml|meta|style|link|img|a\s|div|form|math)|<\?|<!--|^\s*#!|^\s*<[a-z!?/]/i;

/**
 * The type of content that no magic number names: plain text or CSV when the first bytes are
 * UTF-8 without NUL or control characters and hold no markup or script; undefined otherwise
 * (unknown binary, HTML, SVG, XML, a script). `head` may end mid-character.
 */
export function textTypeOf(head: Uint8Array, complete: boolean): 'text/plain' | 'text/csv' | undefined {
  let text: string;
  try {
    text = utf8.decode(complete ? head : trimPartialCharacter(head));
  } catch {
    return undefined;
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text)) return undefined;
  if (MARKUP.test(text)) return undefined;
  return looksLikeCsv(text, complete) ? 'text/csv' : 'text/plain';
}

/** At least two lines, every whole line with the same number (one or more) of commas or semicolons. */
function looksLikeCsv(text: string, complete: boolean): boolean {
  const lines = text.split(/\r?\n/);
  if (!complete) lines.pop();
  const filled = lines.filter((line) => line.trim() !== '');
  if (filled.length < 2) return false;
  for (const separator of [',', ';']) {
    const counts = filled.map((line) => line.split(separator).length - 1);
    if (counts[0]! > 0 && counts.every((n) => n === counts[0])) return true;
  }
  return false;
}

/** Drops a UTF-8 sequence cut off at the end of the buffer. */
function trimPartialCharacter(bytes: Uint8Array): Uint8Array {
  let end = bytes.length;
  let back = 0;
  while (end - back - 1 >= 0 && back < 4 && (bytes[end - back - 1]! & 0xc0) === 0x80) back++;
  const lead = end - back - 1;
  if (lead < 0) return bytes;
  const byte = bytes[lead]!;
  const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  if (needed > back + 1) end = lead;
  return bytes.subarray(0, end);
}

/**
 * A client's file name made safe to store and show: the last path segment only (either slash),
 * no control or bidirectional-override characters, no leading dots, at most 200 characters.
 */
export function cleanFileName(name: string): string {
  const last = name.split(/[\\/]/).pop() ?? '';
  const cleaned = last
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/^[.\s]+/, '')
    .trim()
    .slice(0, 200);
  return cleaned === '' ? 'file' : cleaned;
}
