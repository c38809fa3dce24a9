import { describe, expect, it } from 'vitest';
import { composeSubmissionEmail } from '../../src/features/notifications/views/emails.js';

const file = (id: string, name: string, size: number) => ({
  file: { id, name, size, type: 'image/png', url: `https://forms.example.com/v1/files/${id}?expires=1&signature=s` },
});

describe('the notification email', () => {
  it("links each file by its name in HTML; the text keeps name, size and address", () => {
    const payload = { message: 'see <attached>', cv: file('fil_a', 'cv <1>.pdf', 2048), photos: [file('fil_b', 'a.png', 512), file('fil_c', 'b.png', 1536)] };
    const email = composeSubmissionEmail('Jobs', null, { id: 'sub_1', createdAt: '2026-12-01T00:00:00.000Z', country: 'XX', payload }, 'https://forms.example.com');
    expect(email.html).toContain('<a href="https://forms.example.com/v1/files/fil_a?expires=1&amp;signature=s">cv &lt;1&gt;.pdf (2 KiB)</a>');
    expect(email.html).toContain(
      '<a href="https://forms.example.com/v1/files/fil_b?expires=1&amp;signature=s">a.png (512 B)</a>, <a href="https://forms.example.com/v1/files/fil_c?expires=1&amp;signature=s">b.png (1.5 KiB)</a>',
    );
    expect(email.html).toContain('see &lt;attached&gt;');
    expect(email.text).toContain('cv: cv <1>.pdf (2 KiB) https://forms.example.com/v1/files/fil_a?expires=1&signature=s');
  });

  it('a file without a link (spam) is its name and size, no link', () => {
    const payload = { cv: { file: { id: 'fil_a', name: 'cv.pdf', size: 10, type: 'application/pdf' } } };
    const email = composeSubmissionEmail('Jobs', null, { id: 'sub_1', createdAt: '2026-12-01T00:00:00.000Z', country: 'XX', payload }, 'https://forms.example.com');
    expect(email.html).toContain('<td style="white-space:pre-wrap">cv.pdf (10 B)</td>');
  });
});
