import { Decrypter, Encrypter, armor, generateHybridIdentity, generateX25519Identity, identityToRecipient, type Stanza } from 'age-encryption';
import { beforeAll, describe, expect, it } from 'vitest';
import { armoredAgeProblem, isSealedPayload, isStrictlyArmored, isX25519Recipient } from '../../src/platform/lib/age.js';

/** The age-encryption package's own header reader: its stanzas, or undefined when it refuses the header. */
async function packageStanzas(file: Uint8Array): Promise<Stanza[] | undefined> {
  let stanzas: Stanza[] | undefined;
  const decrypter = new Decrypter();
  decrypter.addIdentity({
    unwrapFileKey(found: Stanza[]) {
      stanzas = found;
      return null;
    },
  });
  await decrypter.decryptHeader(file).catch(() => undefined);
  return stanzas;
}

const encrypt = async (recipients: string[], text = '{"message":"hi"}') => {
  const encrypter = new Encrypter();
  for (const r of recipients) encrypter.addRecipient(r);
  return encrypter.encrypt(text);
};

const X25519_SHARE = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]$/;

let recipients: string[];
beforeAll(async () => {
  recipients = await Promise.all([1, 2, 3].map(async () => identityToRecipient(await generateX25519Identity())));
});

describe('age checks', () => {
  it('takes X25519 recipients only, checksum included', async () => {
    for (const r of recipients) expect(isX25519Recipient(r)).toBe(true);
    const r = recipients[0]!;
    const flipped = r.slice(0, 10) + (r[10] === 'q' ? 'p' : 'q') + r.slice(11);
    const hybrid = await identityToRecipient(await generateHybridIdentity());
    for (const bad of [flipped, r.toUpperCase(), `${r}q`, r.slice(0, -1), ` ${r}`, hybrid, 'age1', 'AGE-SECRET-KEY-1QQQQ']) expect(isX25519Recipient(bad), bad).toBe(false);
  });

  it('reads a header as the package does: the files it writes pass, a byte changed in the version line or a stanza is judged alike', async () => {
    const file = await encrypt(recipients);
    expect(armoredAgeProblem(armor.encode(file))).toBeNull();
    expect(armoredAgeProblem(armor.encode(await encrypt([recipients[0]!], '')))).toBeNull();
    const macLine = Buffer.from(file).indexOf('\n--- ') + 1;
    let refused = 0;
    // Each byte of the version line and stanzas replaced by each of a few others: the two readers
    // accept and refuse the same files. (The package reads the MAC only to compare it, below.)
    for (let at = 0; at < macLine; at++) {
      for (const byte of [0x20, 0x0a, 0x41, 0x2b, 0x3d, 0x2d, 0x7f]) {
        if (file[at] === byte) continue;
        const changed = Uint8Array.from(file);
        changed[at] = byte;
        const theirs = await packageStanzas(changed);
        const ours = armoredAgeProblem(armor.encode(changed));
        // The package reads the share when an identity tries the stanza: 32 bytes of canonical unpadded base64.
        const theirsOk = theirs !== undefined && theirs.length > 0 && theirs.every((s) => s.args[0] === 'X25519' && s.args.length === 2 && X25519_SHARE.test(s.args[1]!) && s.body.length === 32);
        expect({ at, byte, accepted: ours === null }).toEqual({ at, byte, accepted: theirsOk });
        if (ours !== null) refused++;
      }
    }
    expect(refused).toBeGreaterThan(macLine);
    // A MAC of another length than HMAC-SHA256's 32 bytes could never match: refused.
    const text = Buffer.from(file).toString('latin1');
    const macEnd = text.indexOf('\n', macLine);
    for (const mac of [text.slice(macLine + 4, macEnd - 1), `${text.slice(macLine + 4, macEnd)}AAAA`, '']) {
      const changed = Buffer.from(text.slice(0, macLine + 4) + mac + text.slice(macEnd), 'latin1');
      expect(armoredAgeProblem(armor.encode(changed)), mac).toMatch(/header/);
    }
  });

  it('refuses other armor, other recipients, and a header with no payload', async () => {
    const hybrid = await identityToRecipient(await generateHybridIdentity());
    const passphrase = new Encrypter();
    passphrase.setPassphrase('words');
    passphrase.setScryptWorkFactor(2);
    const file = await encrypt([recipients[0]!]);
    const headerOnly = file.subarray(0, Buffer.from(file).indexOf('\n', Buffer.from(file).indexOf('\n--- ') + 1) + 1);
    expect(armoredAgeProblem(armor.encode(await encrypt([hybrid])))).toMatch(/X25519/);
    expect(armoredAgeProblem(armor.encode(await passphrase.encrypt('x')))).toMatch(/X25519/);
    expect(armoredAgeProblem(armor.encode(headerOnly))).toMatch(/payload/);
    expect(armoredAgeProblem('hello')).toMatch(/armored/);
    expect(armoredAgeProblem(Buffer.from(file).toString('base64'))).toMatch(/armored/);
  });

  it('tells a sealed payload and strict armor apart from look-alikes', async () => {
    const armored = armor.encode(await encrypt([recipients[0]!]));
    expect(isSealedPayload({ sealed: armored })).toBe(true);
    expect(isSealedPayload({ sealed: armored, email: 'a@example.com' })).toBe(false);
    expect(isSealedPayload({ sealed: 'hello' })).toBe(false);
    expect(isSealedPayload({ other: armored })).toBe(false);
    expect(isStrictlyArmored(armored)).toBe(true);
    expect(isStrictlyArmored(armored.replaceAll('\n', '\r\n'))).toBe(true);
    expect(isStrictlyArmored(armored.replace('\n-----END', '\n=HYPERLINK("x")\n-----END'))).toBe(false);
    expect(isStrictlyArmored(`${armored}more`)).toBe(false);
  });
});
