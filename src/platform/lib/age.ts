import { Decrypter, Encrypter, armor, type Stanza } from 'age-encryption';

/**
 * Checks on the age format (https://age-encryption.org) for sealed forms, done with the
 * age-encryption package's own parsers: the server never decrypts, it only refuses what no
 * recipient's identity could open.
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
 * when it is. The header is parsed by the package's decrypter, with a stand-in identity that
 * records the stanzas and matches none: the payload is never opened, only its header read.
 */
export async function armoredAgeProblem(text: string): Promise<string | null> {
  let file: Uint8Array;
  try {
    file = armor.decode(text);
  } catch {
    return 'is not an armored age file (BEGIN/END AGE ENCRYPTED FILE, base64 lines of 64)';
  }
  let stanzas: Stanza[] | undefined;
  const decrypter = new Decrypter();
  decrypter.addIdentity({
    unwrapFileKey(found: Stanza[]) {
      stanzas = found;
      return null;
    },
  });
  try {
    await decrypter.decryptHeader(file);
  } catch {
    // Expected: the stand-in matches nothing. Only whether the header parsed matters.
  }
  if (!stanzas) return 'has no valid age header';
  if (stanzas.length === 0 || !stanzas.every(isX25519Stanza)) return 'must be encrypted to X25519 recipients (age1…) only';
  return null;
}

// "-> X25519 <ephemeral share>" and a 32-byte wrapped file key.
const isX25519Stanza = (stanza: Stanza): boolean => stanza.args[0] === 'X25519' && stanza.args.length === 2 && stanza.body.length === 32;

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
