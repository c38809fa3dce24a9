/**
 * Answers of a pure function remembered per key, at most `capacity` of them: when full, the memo
 * is emptied before the next answer is kept. Emptying (not evicting one by one) keeps each call
 * to a map lookup, and a flood of new keys can only empty the memo, never grow it.
 */
export class BoundedMemo<K, V> {
  private readonly answers = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K, compute: (key: K) => V): V {
    let value = this.answers.get(key);
    if (value === undefined && !this.answers.has(key)) {
      value = compute(key);
      if (this.answers.size >= this.capacity) this.answers.clear();
      this.answers.set(key, value);
    }
    return value as V;
  }
}
