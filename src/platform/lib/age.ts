import { Encrypter, armor } from 'age-encryption';

/**
 * Checks on the age format (https://age-encryption.org) for sealed forms: recipients by the
 * age-encryption package's parser, files by its armor and the specification's header grammar.
 * The server never decrypts; it refuses what no recipient's identity could open.
 */

const ARMOR_BEGIN = '-----BEGIN AGE ENCRYPTED FILE-----';

// An X25519 recipient is "age1" and 58 bech32 characters (32 bytes and the checksum); the
// post-quantum and tag kinds are longer and start age1pq1 / age1tag1.
const X25519_RECIPIENT_SHAPE = /^age1[02-9ac-hj-np-z]{58}$/;

/** Whether the text is one age X25519 recipient (`age1…`), its checksum included. */
export function isX25519Recipient(text: string): boolean {
  if (!X25519_RECIPIENT_SHAPE.test(text)) return false;
  try {
    // The package's recipient parser checks the bech32 checksum, the prefix and the key length.
    new Encrypter().addRecipient(text);
    return true;
  } catch {
    return false;
  }
}

/** Whether a stored value looks like an armored age file (a cheap test for the readers of payloads). */
export function looksArmoredAge(value: unknown): value is string {
  return typeof value === 'string' && value.trimStart().startsWith(ARMOR_BEGIN);
}

/**
 * Why the text is not one armored age file whose header holds only X25519 stanzas, or null
 * when it is. The armor is undone by the age-encryption package; the header is read by the
 * grammar of age's specification (https://age-encryption.org/v1): text lines, no key involved,
 * so nothing here decrypts or verifies. The package's own header reader goes through web
 * streams at about half a millisecond a file, which cost the submit path three quarters of its
 * rate (BENCHMARKS.md, sealed forms); tests hold this reader to the package's on every case.
 */
export function armoredAgeProblem(text: string): string | null {
  let file: Uint8Array;
  try {
    file = armor.decode(text);
  } catch {
    return 'is not an armored age file (BEGIN/END AGE ENCRYPTED FILE, base64 lines of 64)';
  }
  const header = readHeader(Buffer.from(file.buffer, file.byteOffset, file.byteLength));
  if (typeof header === 'string') return header;
  if (header.stanzas.length === 0 || !header.stanzas.every(isX25519Stanza)) return 'must be encrypted to X25519 recipients (age1…) only';
  // The payload: a 16-byte nonce, then at least one chunk with its 16-byte tag.
  if (header.payloadBytes < 32) return 'has no payload after its header';
  return null;
}

interface HeaderStanza {
  args: string[];
  body: Buffer;
}

const VERSION_LINE = 'age-encryption.org/v1';
const BASE64_CHARS = /^[A-Za-z0-9+/]*$/;
// An argument is one or more visible ASCII characters.
const ARGUMENT = /^[!-~]+$/;

/** Unpadded base64 in its one canonical spelling, as age writes it; undefined otherwise. */
function canonicalBase64(text: string): Buffer | undefined {
  if (!BASE64_CHARS.test(text) || text.length % 4 === 1) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64').replace(/=+$/, '') === text ? bytes : undefined;
}

/** The header's stanzas and how many bytes follow it, or why it is not an age v1 header. */
function readHeader(file: Buffer): { stanzas: HeaderStanza[]; payloadBytes: number } | string {
  const invalid = 'has no valid age header';
  // The header is text and ends with the MAC line ("--- " and 43 characters) and its newline.
  const macAt = file.indexOf('\n--- ');
  if (macAt < 0) return invalid;
  const end = file.indexOf('\n', macAt + 1);
  if (end < 0) return invalid;
  const lines = file.toString('latin1', 0, end).split('\n');
  if (lines[0] !== VERSION_LINE) return invalid;
  const stanzas: HeaderStanza[] = [];
  let i = 1;
  while (lines[i]?.startsWith('-> ')) {
    const args = lines[i]!.slice(3).split(' ');
    if (!args.every((arg) => ARGUMENT.test(arg))) return invalid;
    i++;
    // The body: base64 lines of 64 characters, the last shorter (possibly empty).
    let body = '';
    for (;;) {
      const line = lines[i];
      if (line === undefined || line.length > 64 || !BASE64_CHARS.test(line)) return invalid;
      body += line;
      i++;
      if (line.length < 64) break;
    }
    const bytes = canonicalBase64(body);
    if (!bytes) return invalid;
    stanzas.push({ args, body: bytes });
  }
  const mac = lines[i]?.startsWith('--- ') ? canonicalBase64(lines[i]!.slice(4)) : undefined;
  if (i !== lines.length - 1 || mac?.length !== 32) return invalid;
  return { stanzas, payloadBytes: file.length - end - 1 };
}

// "-> X25519 <ephemeral share>" and a 32-byte wrapped file key.
const isX25519Stanza = (stanza: HeaderStanza): boolean =>
  stanza.args[0] === 'X25519' && stanza.args.length === 2 && canonicalBase64(stanza.args[1]!)?.length === 32 && stanza.body.length === 32;

/**
 * Whether a stored payload is a sealed form's: exactly `{ sealed: "<armored age file>" }`. Told
 * from the payload itself, not the form, since a form unsealed later keeps its sealed
 * submissions; whatever reads field values (emails, chat, search, the learning filter) shows or
 * learns nothing from one.
 */
export function isSealedPayload(payload: object): payload is { sealed: string } {
  const names = Object.keys(payload);
  return names.length === 1 && names[0] === 'sealed' && looksArmoredAge((payload as Record<string, unknown>).sealed);
}

// The armor as age writes it: the header line, base64 lines of at most 64 characters, the footer.
const STRICT_ARMOR = /^-----BEGIN AGE ENCRYPTED FILE-----\r?\n(?:[A-Za-z0-9+/=]{1,64}\r?\n)+-----END AGE ENCRYPTED FILE-----(?:\r?\n)?$/;

/** Whether the text is exactly one armored age file and nothing else (no character a formula or a markup could use). */
export function isStrictlyArmored(text: string): boolean {
  return STRICT_ARMOR.test(text);
}
