interface Waiting<T> {
  item: T;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Group commit for small writes that arrive one by one (the outcome of each outbound send):
 * those that arrive within one turn of the event loop, or while the previous group is being
 * written, are written by one `writeAll` call (one transaction or statement for many rows instead
 * of one each). `write` resolves once its group is written, and rejects with the group's error.
 */
export class BatchedWrites<T> {
  private waiting: Array<Waiting<T>> = [];
  private writing = false;
  private scheduled = false;

  constructor(private readonly writeAll: (items: T[]) => Promise<void>) {}

  write(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.writing || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    const group = this.waiting;
    this.waiting = [];
    this.writing = true;
    try {
      await this.writeAll(group.map((w) => w.item));
      for (const w of group) w.resolve();
    } catch (err) {
      for (const w of group) w.reject(err);
    } finally {
      this.writing = false;
      this.schedule();
    }
  }
}
