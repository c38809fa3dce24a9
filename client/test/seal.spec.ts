import { Decrypter, armor, generateX25519Identity, identityToRecipient } from 'age-encryption';
import { describe, expect, it } from 'vitest';
import { CONTROL_FIELDS as SERVER_CONTROL_FIELDS } from '../../src/features/submit/control-fields.js';
import { CONTROL_FIELDS, sealedBody } from '../src/seal.js';

async function identity(): Promise<{ secret: string; recipient: string }> {
  const secret = await generateX25519Identity();
  return { secret, recipient: await identityToRecipient(secret) };
}

async function open(sealed: string, secret: string): Promise<unknown> {
  const decrypter = new Decrypter();
  decrypter.addIdentity(secret);
  return JSON.parse(await decrypter.decrypt(armor.decode(sealed), 'text'));
}

describe('a sealed form’s body', () => {
  it('knows the same control fields as the server, which reads them in clear', () => {
    expect([...CONTROL_FIELDS].sort()).toEqual([...SERVER_CONTROL_FIELDS].sort());
  });

  it('posts only `sealed` and the control fields; every recipient opens the fields', async () => {
    const owner = await identity();
    const member = await identity();
    const data = new FormData();
    data.append('email', 'ada@example.org');
    data.append('topics', 'billing');
    data.append('topics', 'api');
    data.append('message', 'Ünïcode and "quotes"');
    data.append('_gotcha', '');
    data.append('altcha', 'solution-token');
    data.append('redirect', 'https://www.example.org/thanks');
    data.append('altcha', 'second-ignored');

    const body = await sealedBody(data, [owner.recipient, member.recipient]);

    expect(Object.keys(body).sort()).toEqual(['_gotcha', 'altcha', 'redirect', 'sealed']);
    expect(body).toMatchObject({ _gotcha: '', altcha: 'solution-token', redirect: 'https://www.example.org/thanks' });
    const sealed = body.sealed as string;
    expect(sealed).toMatch(/^-----BEGIN AGE ENCRYPTED FILE-----\n[\s\S]+\n-----END AGE ENCRYPTED FILE-----\n?$/);
    expect(sealed).not.toContain('ada@example.org');
    const fields = { email: 'ada@example.org', topics: ['billing', 'api'], message: 'Ünïcode and "quotes"' };
    expect(await open(sealed, owner.secret)).toEqual(fields);
    expect(await open(sealed, member.secret)).toEqual(fields);
    const stranger = await identity();
    await expect(open(sealed, stranger.secret)).rejects.toThrow();
  });

  it('refuses to seal to nobody and refuses files, so nothing goes out in clear', async () => {
    const data = new FormData();
    data.append('name', 'Ada');
    await expect(sealedBody(data, [])).rejects.toThrow(/recipient/);
    await expect(sealedBody(data, ['age1notakey'])).rejects.toThrow();
    const withFile = new FormData();
    withFile.append('cv', new File(['x'], 'cv.pdf'));
    await expect(sealedBody(withFile, [(await identity()).recipient])).rejects.toThrow(/files/);
  });

  it('skips an empty file input, as the form sends no file', async () => {
    const me = await identity();
    const data = new FormData();
    data.append('name', 'Ada');
    data.append('cv', new File([], ''));
    const body = await sealedBody(data, [me.recipient]);
    expect(await open(body.sealed as string, me.secret)).toEqual({ name: 'Ada' });
  });
});
