import { describe, expect, it } from 'vitest';
import type { Form } from '../../src/features/forms/form.types.js';
import { formSnippet, reactSnippet } from '../../src/frontends/dashboard/views/snippets.js';

const form = {
  id: 'frm_abc',
  accessKey: `k"<&'`,
  requireBotCheck: true,
  botCheck: 'turnstile',
  turnstileSiteKey: '0x4AAA',
  successUrl: 'https://shop.example/thanks?a=1&b="2"',
  requiredFields: [],
  language: 'auto',
} as unknown as Form;

const altcha = { script: 'https://forms.example/v1/assets/altcha.js?v=2', challenge: 'https://forms.example/v1/challenge/frm_abc' };

describe('dashboard snippets', () => {
  it("with the script: data-formgate, the success URL for the script to follow, the script tag with SRI, all escaped", () => {
    const html = formSnippet(form, 'https://forms.example/v1/submit/frm_abc', altcha, { url: 'https://forms.example/v1/client.0123.js', integrity: 'sha384-AbC+/=' });
    expect(html).toContain('<form action="https://forms.example/v1/submit/frm_abc" method="POST" data-formgate data-formgate-redirect="https://shop.example/thanks?a=1&amp;b=&quot;2&quot;">');
    expect(html).toContain('<input type="hidden" name="access_key" value="k&quot;&lt;&amp;&#39;">');
    expect(html.split('\n').at(-1)).toBe('<script src="https://forms.example/v1/client.0123.js" integrity="sha384-AbC+/=" crossorigin="anonymous" defer></script>');
    expect(formSnippet(form, 'https://forms.example/v1/submit/frm_abc', altcha)).not.toContain('data-formgate');
  });

  it('React: the form ID, base URL and access key as JavaScript string literals', () => {
    const jsx = reactSnippet(form, 'https://forms.example', altcha);
    expect(jsx).toContain(`useFormgate("frm_abc", { baseUrl: "https://forms.example" })`);
    expect(jsx).toContain(`<input type="hidden" name="access_key" value={"k\\"<&'"} />`);
    expect(jsx).toContain('data-sitekey={"0x4AAA"}');
  });

  it("each bot check's widget; ALTCHA loads only from this Formgate", () => {
    const of = (botCheck: string) => formSnippet({ ...form, botCheck } as Form, 'https://forms.example/v1/submit/frm_abc', altcha);
    // auto="onload": the challenge is fetched and solved as the page loads, never when the box is ticked.
    expect(of('altcha')).toContain('<altcha-widget challengeurl="https://forms.example/v1/challenge/frm_abc" auto="onload" hidelogo></altcha-widget>');
    expect(of('altcha')).toContain('<script type="module" src="https://forms.example/v1/assets/altcha.js?v=2" async defer></script>');
    expect(of('altcha')).not.toMatch(/https:\/\/(?!forms\.example)/);
    expect(of('hcaptcha')).toContain('class="h-captcha"');
    expect(of('recaptcha')).toContain('class="g-recaptcha"');
    expect(of('none')).not.toContain('<script');
  });

  it("follows the form's settings: required exactly where required, every required field, multipart only with files", () => {
    const plain = formSnippet({ ...form, botCheck: 'none', accessKey: null } as Form, 'https://forms.example/v1/submit/frm_abc', altcha);
    expect(plain).toContain('<input type="email" name="email">');
    expect(plain).toContain('<textarea name="message"></textarea>');
    expect(plain).not.toContain('required');
    expect(plain).not.toContain('enctype');
    const strict = { ...form, botCheck: 'none', requiredFields: ['email', 'phone"<', 'work_email'] } as unknown as Form;
    const html = formSnippet(strict, 'https://forms.example/v1/submit/frm_abc', altcha);
    expect(html).toContain('<input type="email" name="email" required>');
    expect(html).toContain('<textarea name="message"></textarea>');
    expect(html).toContain('<label>phone&quot;&lt; <input type="text" name="phone&quot;&lt;" required></label>');
    expect(html).toContain('<input type="email" name="work_email" required>');
    const jsx = reactSnippet(strict, 'https://forms.example', altcha);
    expect(jsx).toContain('<input type="email" name={"email"} required />');
    expect(jsx).toContain('<input type="text" name={"phone\\"<"} required />');
    const files = formSnippet({ ...strict, files: 'store' } as unknown as Form, 'https://forms.example/v1/submit/frm_abc', altcha);
    expect(files).toContain('enctype="multipart/form-data"');
    expect(files).toMatch(/<input type="file" name="attachment" accept="image\/\*,[^"]+">/);
  });

  it("gives the file input the form's types, several files when it keeps several, and required when required", () => {
    const base = { ...form, botCheck: 'none', accessKey: null, files: 'store' };
    const one = formSnippet({ ...base, maxFiles: 1, fileTypes: ['images', 'pdf'] } as unknown as Form, 'https://forms.example/v1/submit/frm_abc', altcha);
    expect(one).toContain('<input type="file" name="attachment" accept="image/*,application/pdf,.pdf">');
    const several = { ...base, maxFiles: 5, fileTypes: [], requiredFields: ['attachment'] } as unknown as Form;
    const html = formSnippet(several, 'https://forms.example/v1/submit/frm_abc', altcha);
    expect(html).toContain(
      '<input type="file" name="attachment" accept="image/*,application/pdf,.pdf,text/plain,.txt,text/csv,.csv,.doc,.docx,.xls,.xlsx,.ppt,.pptx,.odt,.ods,.odp,.rtf,application/zip,.zip" multiple required>',
    );
    // One input for the required file, not a text input beside it.
    expect(html.match(/name="attachment"/g)).toHaveLength(1);
    expect(reactSnippet(several, 'https://forms.example', altcha)).toMatch(/<input type="file" name=\{"attachment"\} accept=\{"image\/\*,[^"]+"\} multiple required \/>/);
  });

  it("speaks the form's fixed language (labels, button, lang for the script); auto stays English", () => {
    const german = formSnippet({ ...form, botCheck: 'altcha', language: 'de' } as Form, 'https://forms.example/v1/submit/frm_abc', altcha);
    expect(german).toContain(' lang="de"');
    expect(german).toContain('<label>E-Mail <input type="email" name="email"></label>');
    expect(german).toContain('<label>Nachricht <textarea name="message"></textarea></label>');
    expect(german).toContain('<button type="submit">Senden</button>');
    const auto = formSnippet(form, 'https://forms.example/v1/submit/frm_abc', altcha);
    expect(auto).not.toContain(' lang=');
    expect(auto).toContain('<button type="submit">Send</button>');
    expect(reactSnippet({ ...form, botCheck: 'altcha' } as Form, 'https://forms.example', altcha)).toContain(
      '<altcha-widget challengeurl={"https://forms.example/v1/challenge/frm_abc"} auto="onload" hidelogo />',
    );
  });
});
