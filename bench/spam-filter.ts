// `npm run bench:spam-filter`: precision and recall of the learning filter (src/features/spam-filter) on
// the SpamAssassin public corpus (see spam-corpus.ts): trained on one half, scored on the other.
// Prints one JSON line.
import { NaiveBayesModel } from '../src/features/spam-filter/naive-bayes.js';
import { SPAM_THRESHOLD } from '../src/features/spam-filter/spam-filter.service.js';
import { tokenize } from '../src/features/spam-filter/tokenize.js';
import { SPAM_CORPUS_NAME, loadSpamCorpus } from './spam-corpus.js';

const halves = loadSpamCorpus();
const train = halves.train.map((m) => ({ spam: m.spam, tokens: tokenize(m.payload) }));
const test = halves.test.map((m) => ({ spam: m.spam, tokens: tokenize(m.payload) }));

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
    corpus: SPAM_CORPUS_NAME,
    train: { messages: train.length, spam: train.filter((e) => e.spam).length, ham: train.filter((e) => !e.spam).length, ms: Math.round(trainMs) },
    test: { messages: test.length, spam: test.filter((e) => e.spam).length, ham: test.filter((e) => !e.spam).length },
    vocabulary: model.tokens.size,
    atThreshold,
    scoresPerSecond: Math.round(test.length / (scoreMs / 1000)),
    sweep,
  }),
);
