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
 * With `minGapMs`, a group starts no sooner than that after the previous one started, so that a
 * steady trickle is written in groups of many rather than a statement every few items.
 */
export class BatchedWrites<T> {
  private waiting: Array<Waiting<T>> = [];
  private writing = false;
  private scheduled = false;
  private lastFlushAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly writeAll: (items: T[]) => Promise<void>,
    private readonly options: { minGapMs?: number } = {},
  ) {}

  write(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.writing || this.waiting.length === 0) return;
    this.scheduled = true;
    const run = () => {
      this.scheduled = false;
      // A timer can fire up to a millisecond early (libuv counts whole milliseconds from the
      // loop's cached time): then it is set again for what is left of the gap.
      if (this.gapLeft() > 0) this.schedule();
      else void this.flush();
    };
    const wait = this.gapLeft();
    if (wait > 0) setTimeout(run, wait);
    else setImmediate(run);
  }

  private gapLeft(): number {
    return this.lastFlushAt + (this.options.minGapMs ?? 0) - performance.now();
  }

  private async flush(): Promise<void> {
    this.lastFlushAt = performance.now();
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

/**
 * PostgreSQL's way of recording a group of outcomes: one statement for the rows no other
 * transaction holds (`together` skips locked rows and returns the IDs it wrote), then the rest
 * one at a time (`one`), each waiting for its row's lock while holding no other. A deletion
 * cascading over these rows holds them, and waiting for one while holding the others could
 * deadlock with it.
 */
export async function writeSkippingLocked<T>(
  items: T[],
  idOf: (item: T) => string,
  together: (items: T[]) => Promise<Set<string>>,
  one: (item: T) => Promise<void>,
): Promise<void> {
  const written = await together(items);
  for (const item of items) if (!written.has(idOf(item))) await one(item);
}
