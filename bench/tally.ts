/** Counts what a bench sink received per key (a submission ID): how many, how many distinct, how many twice. */
export class Tally {
  private readonly counts = new Map<string, number>();
  private total = 0;

  add(key: string): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    this.total++;
  }

  get distinct(): number {
    return this.counts.size;
  }

  /** Messages beyond the first for their key. */
  get duplicates(): number {
    return this.total - this.counts.size;
  }

  reset(): void {
    this.counts.clear();
    this.total = 0;
  }
}
