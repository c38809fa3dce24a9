import { Encrypter, armor } from 'age-encryption';
import { describe, expect, it } from 'vitest';
import { neutraliseFormula as serverNeutralise } from '../../src/frontends/dashboard/pages/submissions/export.js';
import { decryptedCsv, neutraliseFormula } from '../src/dashboard/csv.js';
import { identitiesOf, makeIdentity, openSealed, protectKeyFile, unprotectKeyFile } from '../src/dashboard/keys.js';

describe('the dashboard’s sealed-form tools', () => {
  it('make a key file as age-keygen writes it, whose identity opens what is sealed to its public key', async () => {
    const made = await makeIdentity(new Date('2026-12-04T10:20:30.456Z'));
    expect(made.keyFile).toBe(`# created: 2026-12-04T10:20:30Z\n# public key: ${made.recipient}\n${made.secret}\n`);
    expect(identitiesOf(`${made.keyFile}\n# another\r\n  ${made.secret}  \n`)).toEqual([made.secret, made.secret]);
    const encrypter = new Encrypter();
    encrypter.addRecipient(made.recipient);
    const sealed = armor.encode(await encrypter.encrypt(JSON.stringify({ email: 'ada@example.org', topics: ['a', 'b'] })));
    expect(await openSealed(sealed, identitiesOf(made.keyFile))).toEqual({ email: 'ada@example.org', topics: ['a', 'b'] });
    const other = await makeIdentity();
    await expect(openSealed(sealed, [other.secret])).rejects.toThrow();
  });

  it('keep the key file only encrypted with a passphrase; a wrong one opens nothing', async () => {
    const made = await makeIdentity();
    await expect(protectKeyFile(made.keyFile, 'short')).rejects.toThrow(/8 characters/);
    // A lighter work factor than the browser's, so the spec stays quick; the browser test uses the default.
    const kept = await protectKeyFile(made.keyFile, 'a long passphrase', 10);
    expect(kept).toMatch(/^-----BEGIN AGE ENCRYPTED FILE-----\n/);
    expect(kept).not.toContain('AGE-SECRET-KEY-');
    // age's passphrase recipient: scrypt, as `age -p` writes it.
    expect(Buffer.from(armor.decode(kept)).toString('latin1')).toMatch(/-> scrypt \S+ 10\n/);
    expect(await unprotectKeyFile(kept, 'a long passphrase')).toBe(made.keyFile);
    await expect(unprotectKeyFile(kept, 'another passphrase')).rejects.toThrow();
  });

  it('export a CSV like the server’s: BOM, every field first seen first, formulas neutralised', () => {
    const csv = decryptedCsv([
      { id: 'sub_1', createdAt: '2026-12-04T10:00:00.000Z', fields: { email: 'ada@example.org', note: '=HYPERLINK("x")' } },
      { id: 'sub_2', createdAt: '2026-12-04T11:00:00.000Z', fields: { topics: ['-a', 'b;c'], email: '@home', n: 5 } },
    ]);
    expect(csv.split('\r\n')).toEqual([
      '\uFEFFcreatedAt,email,note,topics,n,id',
      `2026-12-04T10:00:00.000Z,ada@example.org,"'=HYPERLINK(""x"")",,,sub_1`,
      `2026-12-04T11:00:00.000Z,'@home,,"'-a; b;c",5,sub_2`,
      '',
    ]);
    for (const value of ['=1+1', '+1', '-1', '@x', '\tx', '\rx', '\nx', '\uFF1Dx', 'plain', '']) {
      expect(neutraliseFormula(value)).toBe(serverNeutralise(value));
    }
  });
});
