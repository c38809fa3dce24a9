/** A submission's fields as stored: names to values or arrays of values (only strings carry words). */
export type FieldsToLearn = Readonly<Record<string, unknown>>;

/** Tokens kept per submission: enough for any message a person writes into a form. */
export const MAX_TOKENS = 400;
const MAX_WORD_LENGTH = 40;
const MAX_TEXT_LENGTH = 20_000;

const URL = /\b(?:https?:\/\/|www\.)[^\s<>"'()]+/giu;
const EMAIL = /[^\s@<>"',;()[\]]+@((?:[\p{L}\p{N}-]+\.)+[\p{L}]{2,})/giu;
const BARE_DOMAIN = /\b((?:[\p{L}\p{N}-]+\.)+(?:com|net|org|info|biz|io|co|ru|cn|xyz|top|online|site|shop|club|me|us|uk|de|fr|in|br|app|dev|link|click|live|store|tk|ml|ga|cf|gq|pw|su))\b/giu;
const LINK_HINT = /:\/\/|www\./i;
const SYMBOLS = /[$€£¥₹₽%!?*+@#]/gu;

/** A word of a script written with spaces: letters, marks and digits, with inner apostrophes (don't, l'été). */
const SPACED_WORD = /[\p{L}\p{M}\p{N}]+(?:['’][\p{L}\p{M}]+)*/gu;
/** Scripts written without spaces between words. */
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
// ICU's word segmentation, built into Node (full ICU): dictionaries for Chinese, Japanese, Thai,
// Khmer, Lao and Burmese. It costs ~40 µs for a sentence, so text without those scripts (nearly
// every submission) is split by the regular expression above, which gives the same words there.
const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

/** The same words in text without a non-ASCII character, where Unicode classes cost more. */
const ASCII_WORD = /[a-z0-9]+(?:'[a-z]+)*/g;
const NON_ASCII = /[^\x00-\x7f]/;
const ASCII_DIGITS = /^[0-9]+$/;
const DIGITS = /^\p{N}+$/u;

/** All words at once (a generator's resumptions cost more than the matching, profiled). */
function words(text: string, ascii: boolean): string[] {
  if (ascii) return text.match(ASCII_WORD) ?? [];
  if (UNSPACED_SCRIPT.test(text)) {
    const found: string[] = [];
    for (const { segment, isWordLike } of segmenter.segment(text)) if (isWordLike) found.push(segment);
    return found;
  }
  return text.match(SPACED_WORD) ?? [];
}

/** example.co.uk → co.uk is wrong, but the last two labels are what spammers rotate least; good enough for counting. */
const siteOf = (host: string) => {
  const last = host.lastIndexOf('.');
  const start = last <= 0 ? -1 : host.lastIndexOf('.', last - 1);
  return host.slice(start + 1);
};

function hostTokens(raw: string, into: Set<string>): void {
  let host: string;
  try {
    host = new globalThis.URL(/^https?:\/\//i.test(raw) ? raw : `http://${raw}`).hostname.toLowerCase();
  } catch {
    return;
  }
  into.add('link');
  into.add(`host:${host}`);
  into.add(`site:${siteOf(host)}`);
  if (/^[\d.]+$/.test(host) || host.includes(':')) into.add('link:ip');
}

function textTokens(text: string, into: Set<string>, ascii: boolean): void {
  let rest = text;
  // Most values (names, short messages) hold no link or address: skip those scans for them.
  // The URL pattern needs "://" or "www."; most text has neither, and the scan is not free.
  if (rest.includes('.') && LINK_HINT.test(rest)) {
    rest = rest.replace(URL, (url) => {
      hostTokens(url, into);
      return ' ';
    });
  }
  if (rest.includes('@')) {
    rest = rest.replace(EMAIL, (_address, domain: string) => {
      into.add('email');
      into.add(`email-site:${siteOf(domain.toLowerCase())}`);
      return ' ';
    });
  }
  if (rest.includes('.')) {
    rest = rest.replace(BARE_DOMAIN, (domain: string) => {
      hostTokens(domain, into);
      return ' ';
    });
  }
  for (const symbol of rest.match(SYMBOLS) ?? []) into.add(`sym:${symbol}`);
  // A long value in capitals only; the test stops at the first lower-case letter, so it costs nothing for the rest.
  if (rest.length >= 20 && !/\p{Ll}/u.test(rest) && /\p{Lu}/u.test(rest)) into.add('shape:shouting');
  for (const word of words(rest.toLowerCase(), ascii)) {
    // A number's digits say little; how long it is (a price, a phone number, a year) says more.
    if ((ascii ? ASCII_DIGITS : DIGITS).test(word)) into.add(`num:${Math.min(word.length, 12)}`);
    else if (word.length <= MAX_WORD_LENGTH) into.add(word);
    if (into.size >= MAX_TOKENS) return;
  }
}

/**
 * The distinct tokens of a submission's values: words (any script, lower-cased, NFKC so
 * look-alike full-width letters count as the letters they imitate), the hosts and sites of
 * links and email addresses, symbols, number lengths, and a rough length class. Field names are
 * left out: they are the same for every submission of a form, spam or not.
 */
export function tokenize(payload: FieldsToLearn): string[] {
  // One pass over all values joined by line breaks (no token spans a line break): the scans cost
  // per call, and a contact form has several short fields.
  const texts: string[] = [];
  let length = 0;
  for (const value of Object.values(payload)) {
    for (const scalar of Array.isArray(value) ? (value as unknown[]) : [value]) {
      if (typeof scalar !== 'string' || scalar === '' || length >= MAX_TEXT_LENGTH) continue;
      texts.push(scalar);
      length += scalar.length;
    }
  }
  const into = new Set<string>();
  if (texts.length > 0) {
    const text = texts.join('\n').slice(0, MAX_TEXT_LENGTH);
    // ASCII text is its own NFKC form, and its words need no Unicode classes.
    const ascii = !NON_ASCII.test(text);
    textTokens(ascii ? text : text.normalize('NFKC'), into, ascii);
  }
  into.add(`len:${length === 0 ? 0 : Math.min(Math.ceil(Math.log2(length)), 14)}`);
  return [...into];
}
