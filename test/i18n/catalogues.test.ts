import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogues, chooseLanguage, languages } from '../../src/platform/i18n/i18n.js';
import { templateProblem } from '../../src/platform/lib/template.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';

let t: AppUnderTest;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('message catalogues', () => {
  it('has English, German, French, Spanish and Portuguese, one file each, all with exactly the same keys', () => {
    const files = readdirSync(new URL('../../src/platform/i18n/locales/', import.meta.url)).filter((f) => f.endsWith('.json')).sort();
    expect(files).toEqual(['de.json', 'en.json', 'es.json', 'fr.json', 'pt.json']);
    expect([...languages].sort()).toEqual(files.map((f) => f.replace('.json', '')));
    const englishKeys = Object.keys(catalogues.en).sort();
    for (const language of languages) {
      const catalogue: Record<string, string> = catalogues[language];
      expect(Object.keys(catalogue).sort(), language).toEqual(englishKeys);
      for (const [key, text] of Object.entries(catalogue)) expect(text.trim(), `${language} ${key}`).not.toBe('');
      expect(templateProblem(catalogue['confirmation.subject']!), language).toBeUndefined();
      expect(templateProblem(catalogue['confirmation.body']!), language).toBeUndefined();
      for (const placeholder of ['{form}', '{host}', '{url}']) expect(catalogue['confirmation.footer']).toContain(placeholder);
    }
  });

  it("chooses the form's language, else the best Accept-Language match, else English", () => {
    expect(chooseLanguage('de', 'fr')).toBe('de');
    expect(chooseLanguage('auto', 'pt-BR,pt;q=0.9,en;q=0.5')).toBe('pt');
    expect(chooseLanguage('auto', 'es-MX')).toBe('es');
    expect(chooseLanguage('auto', 'ja, fr;q=0.3, de;q=0.8')).toBe('de');
    expect(chooseLanguage('auto', 'ja, zh')).toBe('en');
    expect(chooseLanguage('auto', '')).toBe('en');
    expect(chooseLanguage(undefined, '*;q=;;;,,,garbage')).toBe('en');
  });

  it('answers the hosted error and thank-you pages in the negotiated language', async () => {
    const fr = await t.fetch('/thanks?error=rate_limited', { headers: { 'accept-language': 'fr-CA,fr;q=0.9' } });
    expect(fr.headers.get('content-language')).toBe('fr');
    const body = await fr.text();
    expect(body).toContain('<html lang="fr">');
    expect(body).toContain(catalogues.fr['error.rate_limited']);
    const plain = await t.fetch('/thanks', { headers: { 'accept-language': 'es' } });
    expect(await plain.text()).toContain(catalogues.es['thanks.text']);
    // A form's language wins over the header; an unknown form is the plain page.
    const { form } = await createOwner(t.services, { form: { language: 'de', thanksTitle: 'Danke & "Tschüss"' } });
    const de = await (await t.fetch(`/thanks?form=${form.id}`, { headers: { 'accept-language': 'pt' } })).text();
    expect(de).toContain('<html lang="de">');
    expect(de).toContain('<h1>Danke &amp; &quot;Tschüss&quot;</h1>');
    expect(de).toContain(catalogues.de['thanks.text']);
    const unknown = await t.fetch('/thanks?form=frm_nope', { headers: { 'accept-language': 'pt' } });
    expect(unknown.status).toBe(200);
    expect(await unknown.text()).toContain(catalogues.pt['thanks.heading']);
  });
});
