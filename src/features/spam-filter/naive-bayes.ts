/** Token counts of one account's filter, as held in memory by every instance. */
export interface TokenCounts {
  spam: number;
  ham: number;
}

/**
 * Multinomial naive Bayes over the distinct tokens of a message (each token counted once per
 * example: "binarized" naive Bayes, which does better than raw counts on short texts), with
 * add-one smoothing. Tokens never seen in training carry no evidence and are skipped.
 */
export class NaiveBayesModel {
  readonly tokens = new Map<string, TokenCounts>();
  spamExamples = 0;
  hamExamples = 0;
  /** Sums of the counts over every token: the denominators of P(token | class). */
  private spamTotal = 0;
  private hamTotal = 0;

  /** Replaces a token's counts (a row read from the database), keeping the sums right. */
  setToken(token: string, spam: number, ham: number): void {
    const old = this.tokens.get(token);
    if (old) {
      this.spamTotal -= old.spam;
      this.hamTotal -= old.ham;
    }
    if (spam === 0 && ham === 0) {
      this.tokens.delete(token);
      return;
    }
    this.tokens.set(token, { spam, ham });
    this.spamTotal += spam;
    this.hamTotal += ham;
  }

  /** Adds one example (tests and the benchmark; the service learns through the database). */
  learn(tokens: readonly string[], spam: boolean): void {
    for (const token of tokens) {
      const counts = this.tokens.get(token) ?? { spam: 0, ham: 0 };
      this.setToken(token, counts.spam + (spam ? 1 : 0), counts.ham + (spam ? 0 : 1));
    }
    if (spam) this.spamExamples += 1;
    else this.hamExamples += 1;
  }

  /**
   * The log-odds that a message with these tokens is spam. Equal priors: how many spam examples
   * the traps caught says nothing about how likely the next message is spam, and a prior leaning
   * to spam would cost precision.
   */
  logOdds(tokens: readonly string[]): number {
    const vocabulary = this.tokens.size;
    const spamDenominator = Math.log(this.spamTotal + vocabulary);
    const hamDenominator = Math.log(this.hamTotal + vocabulary);
    let sum = 0;
    for (const token of tokens) {
      const counts = this.tokens.get(token);
      if (!counts) continue;
      sum += Math.log(counts.spam + 1) - spamDenominator - (Math.log(counts.ham + 1) - hamDenominator);
    }
    return sum;
  }

  /** P(spam | tokens), from the log-odds. */
  spamProbability(tokens: readonly string[]): number {
    return 1 / (1 + Math.exp(-this.logOdds(tokens)));
  }
}
