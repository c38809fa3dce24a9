import { Decrypter, Encrypter, armor, generateX25519Identity, identityToRecipient } from 'age-encryption';

/** Where this browser keeps the passphrase-protected copy of an identity. */
export const STORE_KEY = 'formgate.sealed.identity';

export interface NewIdentity {
  secret: string;
  recipient: string;
  /** The file as `age-keygen` writes it: usable with `age -d -i key.txt`. */
  keyFile: string;
}

/** A new X25519 identity, made here: the secret exists only in this page and what it saves. */
export async function makeIdentity(now = new Date()): Promise<NewIdentity> {
  const secret = await generateX25519Identity();
  const recipient = await identityToRecipient(secret);
  const created = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return { secret, recipient, keyFile: `# created: ${created}\n# public key: ${recipient}\n${secret}\n` };
}

/** The identities of a key file (comments and blank lines skipped), as `age -i` reads it. */
export function identitiesOf(keyFile: string): string[] {
  return keyFile
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.startsWith('AGE-SECRET-KEY-'));
}

/**
 * The key file encrypted with the passphrase (age's scrypt recipient), armored. The work factor
 * is age's own default (2^18, about a second in a browser), as `age -p` uses.
 */
export async function protectKeyFile(keyFile: string, passphrase: string, scryptLogN = 18): Promise<string> {
  if (passphrase.length < 8) throw new Error('Choose a passphrase of at least 8 characters.');
  const encrypter = new Encrypter();
  encrypter.setPassphrase(passphrase);
  encrypter.setScryptWorkFactor(scryptLogN);
  return armor.encode(await encrypter.encrypt(keyFile));
}

/** The key file back from its protected copy; throws on a wrong passphrase. */
export async function unprotectKeyFile(protectedCopy: string, passphrase: string): Promise<string> {
  const decrypter = new Decrypter();
  decrypter.addPassphrase(passphrase);
  return decrypter.decrypt(armor.decode(protectedCopy), 'text');
}

/** A sealed submission's fields, opened with any of the identities; throws when none fits. */
export async function openSealed(sealed: string, identities: readonly string[]): Promise<Record<string, unknown>> {
  const decrypter = new Decrypter();
  for (const identity of identities) decrypter.addIdentity(identity);
  const fields: unknown = JSON.parse(await decrypter.decrypt(armor.decode(sealed), 'text'));
  if (!fields || typeof fields !== 'object' || Array.isArray(fields)) throw new Error('The sealed data is not a set of fields.');
  return fields as Record<string, unknown>;
}
