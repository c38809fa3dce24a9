import Negotiator from 'negotiator';
import { BoundedMemo } from '../lib/bounded-memo.js';
import de from './locales/de.json' with { type: 'json' };
import en from './locales/en.json' with { type: 'json' };
import es from './locales/es.json' with { type: 'json' };
import fr from './locales/fr.json' with { type: 'json' };
import pt from './locales/pt.json' with { type: 'json' };

/**
 * Texts a visitor reads (docs/api.md, languages): the hosted pages and the default confirmation
 * email, one JSON catalogue per language in locales/. A language is a catalogue file plus its
 * line below; test/i18n checks every catalogue has exactly English's keys. The dashboard stays
 * English.
 */
export type MessageKey = keyof typeof en;
export type Catalogue = Record<MessageKey, string>;

export const catalogues = { en, de, fr, es, pt } satisfies Record<string, Catalogue>;
export type Language = keyof typeof catalogues;
export const languages = Object.keys(catalogues) as Language[];
export const DEFAULT_LANGUAGE: Language = 'en';

export const isLanguage = (value: string): value is Language => Object.hasOwn(catalogues, value);

/**
 * The form's language when it names one; for `auto` (or none), the best match of the
 * Accept-Language header, else English.
 */
export function chooseLanguage(formLanguage: string | undefined, acceptLanguage: string | undefined): Language {
  if (formLanguage !== undefined && isLanguage(formLanguage)) return formLanguage;
  if (!acceptLanguage) return DEFAULT_LANGUAGE;
  return acceptLanguage.length > ACCEPT_REMEMBERED_LENGTH ? negotiate(acceptLanguage) : negotiated.get(acceptLanguage, negotiate);
}

function negotiate(acceptLanguage: string): Language {
  const best = new Negotiator({ headers: { 'accept-language': acceptLanguage } }).language(languages);
  return best !== undefined && isLanguage(best) ? best : DEFAULT_LANGUAGE;
}

// Every submission and refusal asks (its JSON and pages speak the visitor's language), and
// browsers send a handful of distinct headers: each is negotiated once. Bounded in count and
// length, so odd headers cannot grow it.
const negotiated = new BoundedMemo<string, Language>(64);
const ACCEPT_REMEMBERED_LENGTH = 256;

export function messages(language: Language): Catalogue {
  return catalogues[language];
}

/** `{name}` in a catalogue text is the value of that name (a file's name, a limit); a name without a value stays empty. */
export function fillParams(text: string, params: Readonly<Record<string, string>> | undefined): string {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (_, name: string) => (Object.hasOwn(params, name) ? params[name]! : ''));
}
