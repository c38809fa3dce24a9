import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { ipLiteralOf, isLocalhostName, isPublicAddress } from '../../src/platform/lib/addresses.js';
import { createSafeLookup, type Resolver } from '../../src/platform/lib/safe-lookup.js';
import { targetUrlProblem } from '../../src/platform/lib/target-url.js';

describe('isPublicAddress', () => {
  it('allows public unicast addresses of both families', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:81c::200e']) expect(isPublicAddress(address), address).toBe(true);
  });

  it('refuses every range that reaches the machine, its network or a translation to them', () => {
    for (const address of [
      '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', // private
      '127.0.0.1', '127.255.255.254', '::1', // loopback
      '169.254.169.254', 'fe80::1', // link-local (cloud metadata)
      '100.64.0.1', // carrier-grade NAT
      '0.0.0.0', '::', // unspecified
      '224.0.0.1', 'ff02::1', '255.255.255.255', '240.0.0.1', // multicast, broadcast, reserved
      'fc00::1', 'fd12:3456::1', // unique-local
      '::ffff:8.8.8.8', '::ffff:127.0.0.1', // IPv4-mapped
      '64:ff9b::a00:1', // NAT64
      '2002:a00:1::1', // 6to4
      '2001::1', // Teredo
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it('refuses what is not an address', () => {
    for (const value of ['', 'example.com', '8.8.8.8.8', '1.2.3.256', '[::1]', ' 8.8.8.8']) expect(isPublicAddress(value), value).toBe(false);
  });
});

describe('isLocalhostName', () => {
  it('is localhost and every name under it, in any case, with or without the final dot', () => {
    for (const host of ['localhost', 'LOCALHOST', 'localhost.', 'api.localhost', 'a.b.Localhost.']) expect(isLocalhostName(host), host).toBe(true);
    for (const host of ['localhost.example.com', 'mylocalhost', 'localhostx', 'example.com', '127.0.0.1']) expect(isLocalhostName(host), host).toBe(false);
  });
});

describe('ipLiteralOf', () => {
  it('gives the address of an IP host, brackets removed, and nothing for a name', () => {
    expect(ipLiteralOf(new URL('https://[::1]:8443/x'))).toBe('::1');
    expect(ipLiteralOf(new URL('https://10.1.2.3/'))).toBe('10.1.2.3');
    // WHATWG parsing has already made these 127.0.0.1.
    expect(ipLiteralOf(new URL('https://0x7f000001/'))).toBe('127.0.0.1');
    expect(ipLiteralOf(new URL('https://2130706433/'))).toBe('127.0.0.1');
    expect(ipLiteralOf(new URL('https://127.1/'))).toBe('127.0.0.1');
    expect(ipLiteralOf(new URL('https://example.com/'))).toBeUndefined();
  });
});

describe('targetUrlProblem', () => {
  it('accepts a public HTTPS URL, a port and a query included', () => {
    expect(targetUrlProblem('https://hooks.example.com/formgate?x=1', false)).toBeUndefined();
    expect(targetUrlProblem('https://8.8.8.8:8443/hook', false)).toBeUndefined();
  });

  it('refuses what is not an absolute https: URL, whatever allowPrivate says', () => {
    for (const allowPrivate of [false, true]) {
      expect(targetUrlProblem('/relative/path', allowPrivate)).toBe('must be an absolute URL');
      expect(targetUrlProblem('not a url', allowPrivate)).toBe('must be an absolute URL');
      expect(targetUrlProblem('http://hooks.example.com/', allowPrivate)).toBe('must be an https: URL');
      expect(targetUrlProblem('ftp://hooks.example.com/', allowPrivate)).toBe('must be an https: URL');
      expect(targetUrlProblem('https://user:pass@hooks.example.com/', allowPrivate)).toBe('must not contain credentials');
      expect(targetUrlProblem('https://user@hooks.example.com/', allowPrivate)).toBe('must not contain credentials');
    }
  });

  it('allows 2048 characters and no more', () => {
    const prefix = 'https://hooks.example.com/';
    expect(targetUrlProblem(prefix + 'a'.repeat(2048 - prefix.length), false)).toBeUndefined();
    expect(targetUrlProblem(prefix + 'a'.repeat(2049 - prefix.length), false)).toBe('must be at most 2048 characters');
  });

  it('refuses localhost and private literals however they are written, unless private targets are allowed', () => {
    expect(targetUrlProblem('https://localhost/x', false)).toBe('must be a public address, not localhost');
    expect(targetUrlProblem('https://svc.LOCALHOST./x', false)).toBe('must be a public address, not localhost');
    for (const url of ['https://127.0.0.1/', 'https://127.1/', 'https://0x7f000001/', 'https://2130706433/', 'https://[::1]/', 'https://[::ffff:10.0.0.1]/', 'https://169.254.169.254/latest', 'https://10.0.0.1:8443/']) {
      expect(targetUrlProblem(url, false), url).toBe('must be a public address');
      expect(targetUrlProblem(url, true), url).toBeUndefined();
    }
    expect(targetUrlProblem('https://localhost/x', true)).toBeUndefined();
  });
});

describe('createSafeLookup', () => {
  type Answer = { err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number | undefined };
  const lookUp = (resolve: Resolver, allowPrivate: boolean, all: boolean) =>
    new Promise<Answer>((done) => createSafeLookup(resolve, allowPrivate)('hooks.example.com', { all }, (err, address, family) => done({ err, address, family })));
  const answering = (...addresses: LookupAddress[]): Resolver => async () => addresses;

  it('hands the socket only the public addresses the name resolves to', async () => {
    const resolve = answering({ address: '10.0.0.5', family: 4 }, { address: '8.8.8.8', family: 4 }, { address: '::1', family: 6 }, { address: '2606:4700::1', family: 6 });
    expect(await lookUp(resolve, false, true)).toEqual({ err: null, address: [{ address: '8.8.8.8', family: 4 }, { address: '2606:4700::1', family: 6 }], family: undefined });
    expect(await lookUp(resolve, false, false)).toEqual({ err: null, address: '8.8.8.8', family: 4 });
  });

  it('fails the connection when no address is public', async () => {
    const { err, address } = await lookUp(answering({ address: '127.0.0.1', family: 4 }, { address: 'fd00::1', family: 6 }), false, false);
    expect(err).toMatchObject({ code: 'FORMGATE_REFUSED_ADDRESS', message: 'hooks.example.com resolves to no public address' });
    expect(address).toEqual([]);
    expect((await lookUp(answering(), false, true)).err).toMatchObject({ code: 'FORMGATE_REFUSED_ADDRESS' });
  });

  it('keeps private addresses when they are allowed, and passes a resolver error on', async () => {
    expect(await lookUp(answering({ address: '127.0.0.1', family: 4 }), true, false)).toEqual({ err: null, address: '127.0.0.1', family: 4 });
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND hooks.example.com'), { code: 'ENOTFOUND' });
    const { err } = await lookUp(() => Promise.reject(notFound), false, false);
    expect(err).toBe(notFound);
  });
});
