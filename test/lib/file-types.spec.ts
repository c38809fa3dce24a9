import { describe, expect, it } from 'vitest';
import { allowedFileTypes, cleanFileName, describeFileTypes, isFileTypeEntry, textTypeOf } from '../../src/platform/lib/file-types.js';
import { fileLinkIsValid, formatBytes, signedFileUrl, withFileLinks } from '../../src/platform/lib/file-links.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('file types told by content', () => {
  it('plain text and CSV; never markup, script or binary', () => {
    expect(textTypeOf(bytes('Hello,\nthis is a note.'), true)).toBe('text/plain');
    expect(textTypeOf(bytes('name,email\nAda,ada@example.com\nBob,bob@example.com\n'), true)).toBe('text/csv');
    for (const markup of ['<!doctype html><p>hi', '  <svg xmlns="http://www.w3.org/2000/svg"/>', '<?xml version="1.0"?><a/>', 'text then <script>alert(1)</script>', '#!/bin/sh\nrm -rf /']) {
      expect(textTypeOf(bytes(markup), true), markup).toBeUndefined();
    }
    expect(textTypeOf(new Uint8Array([0x00, 0x01, 0x02]), true)).toBeUndefined();
    expect(textTypeOf(new Uint8Array([0xff, 0xfe, 0x41]), true)).toBeUndefined();
    // A head cut in the middle of a character is still text.
    const euro = bytes('price: 5 €');
    expect(textTypeOf(euro.subarray(0, euro.length - 1), false)).toBe('text/plain');
  });

  it('groups and MIME types; HTML, SVG and XML are never allowed', () => {
    expect(isFileTypeEntry('images')).toBe(true);
    expect(isFileTypeEntry('application/pdf')).toBe(true);
    expect(isFileTypeEntry('text/html')).toBe(false);
    expect(isFileTypeEntry('image/svg+xml')).toBe(false);
    expect(isFileTypeEntry('nonsense')).toBe(false);
    expect([...allowedFileTypes(['pdf', 'text/csv'])].sort()).toEqual(['application/pdf', 'text/csv']);
    expect(allowedFileTypes([]).has('image/png')).toBe(true);
    expect(allowedFileTypes([]).has('application/zip')).toBe(true);
  });

  it('cleans names of paths, control and direction characters', () => {
    expect(cleanFileName('../../etc/passwd')).toBe('passwd');
    expect(cleanFileName('C:\\Users\\ada\\cv.pdf')).toBe('cv.pdf');
    expect(cleanFileName('in\u202evoice\u0000.png')).toBe('invoice.png');
    expect(cleanFileName('...hidden')).toBe('hidden');
    expect(cleanFileName('')).toBe('file');
    expect(cleanFileName('x'.repeat(500))).toHaveLength(200);
  });
});

describe('signed file links', () => {
  const key = Buffer.alloc(32, 1);
  it('verify for their file and expiry only, and never once expired', () => {
    const url = new URL(signedFileUrl('https://forms.example.com', key, 'fil_a', 2_000_000_000));
    const expires = url.searchParams.get('expires')!;
    const signature = url.searchParams.get('signature')!;
    expect(fileLinkIsValid(key, 'fil_a', expires, signature, 1_900_000_000)).toBe(true);
    expect(fileLinkIsValid(key, 'fil_b', expires, signature, 1_900_000_000)).toBe(false);
    expect(fileLinkIsValid(key, 'fil_a', '2000000001', signature, 1_900_000_000)).toBe(false);
    expect(fileLinkIsValid(Buffer.alloc(32, 2), 'fil_a', expires, signature, 1_900_000_000)).toBe(false);
    expect(fileLinkIsValid(key, 'fil_a', expires, signature, 2_000_000_000)).toBe(false);
  });

  it('are added to file values only, and left out for spam', () => {
    const payload = { name: 'Ada', cv: { file: { id: 'fil_a', name: 'cv.pdf', size: 3, type: 'application/pdf' } } };
    expect(withFileLinks(payload, (id) => `L/${id}`)).toEqual({ name: 'Ada', cv: { file: { id: 'fil_a', name: 'cv.pdf', size: 3, type: 'application/pdf', url: 'L/fil_a' } } });
    expect(withFileLinks(payload, undefined)).toEqual(payload);
  });
});

describe('file values in messages', () => {
  it('read as name, size and link in chat messages and emails, never as [object Object]', async () => {
    const { buildSubmissionMessage } = await import('../../src/features/integrations/message.js');
    const { valueText } = await import('../../src/platform/lib/template.js');
    const value = { file: { id: 'fil_a', name: 'cv.pdf', size: 2048, type: 'application/pdf', url: 'https://forms.example.com/v1/files/fil_a?expires=1&signature=s' } };
    const message = buildSubmissionMessage('Jobs', { id: 'sub_1', createdAt: '2026-12-01T00:00:00.000Z', country: 'XX', payload: { cv: value } }, 'https://forms.example.com/x');
    expect(message.fields).toEqual([{ name: 'cv', value: 'cv.pdf (2 KiB) https://forms.example.com/v1/files/fil_a?expires=1&signature=s' }]);
    expect(valueText([value, value])).toBe('cv.pdf (2 KiB) https://forms.example.com/v1/files/fil_a?expires=1&signature=s, cv.pdf (2 KiB) https://forms.example.com/v1/files/fil_a?expires=1&signature=s');
  });
});

describe('sizes and types in words', () => {
  it('sizes in binary units, never more than the bytes', () => {
    expect([0, 512, 1024, 1536, 10 * 1024 * 1024, 25 * 1024 * 1024 - 1, 1024 ** 3].map(formatBytes)).toEqual(['0 B', '512 B', '1 KiB', '1.5 KiB', '10 MiB', '24.9 MiB', '1 GiB']);
  });

  it("a form's types: groups in words, MIME types as written, the default groups when none", () => {
    expect(describeFileTypes(['pdf', 'application/x-tar'])).toBe('PDF, application/x-tar');
    expect(describeFileTypes([])).toBe('images, PDF, plain text, CSV, office documents (Word, Excel, PowerPoint, OpenDocument, RTF), ZIP');
  });
});
