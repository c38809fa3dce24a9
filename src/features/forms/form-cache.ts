import type { Form } from './form.types.js';

/**
 * How long the submit path may answer from what it read about a form ID before reading it
 * again: a form created, changed or deleted through another instance is seen within this.
 */
export const FORM_CACHE_TTL_MS = 1000;
/** Forms kept at once; past this the least recently read go first. */
const KNOWN_CAPACITY = 10_000;
/** Form IDs no form has, kept at once; past this the least recently read go first. */
const UNKNOWN_CAPACITY = 10_000;

/** A bounded map whose oldest entry goes first when it is full (a Map iterates in insertion order). */
class BoundedEntries<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The value while it is fresh; an expired entry is dropped. */
  fresh(key: string, now: number): { value: T } | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until > now) return entry;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: T, until: number): void {
    // Re-inserted, so that a form read again moves to the young end.
    this.entries.delete(key);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, until });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

/** IDs read in one query at most; more wait for the next one. */
export const FORM_READ_BATCH = 64;

interface Waiting {
  resolve: (form: Form | undefined) => void;
  reject: (err: unknown) => void;
  reading: Promise<Form | undefined>;
}

/**
 * What the submit path knows about form IDs, each fact for FORM_CACHE_TTL_MS. Forms and IDs that
 * name no form are kept apart, each bounded: a client inventing IDs fills only the second, so
 * however many it sends, every real form stays cached and its submissions cost no query.
 *
 * IDs not cached are read together, as the submit writer writes: the IDs missed while the event
 * loop handles one round of requests go in one query (`readMany`, at most FORM_READ_BATCH), one
 * query at a time, and those missed meanwhile wait for the next. A request for an ID already
 * being read joins that read. A flood of invented IDs thus costs a query per batch, not per
 * request.
 */
export class FormCache {
  private readonly known = new BoundedEntries<Form>(KNOWN_CAPACITY);
  private readonly unknown = new BoundedEntries<true>(UNKNOWN_CAPACITY);
  /** Reads under way or waiting, by ID: the ones that find the same ID share them. */
  private readonly reading = new Map<string, Promise<Form | undefined>>();
  private readonly waiting = new Map<string, Waiting>();
  private batchScheduled = false;
  private batchInFlight = false;

  constructor(
    /** The forms among these IDs (any order; the IDs may repeat). */
    private readonly readMany: (formIds: string[]) => Promise<Form[]>,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Sizes of the two sets (tests check their bounds). */
  get sizes(): { known: number; unknown: number } {
    return { known: this.known.size, unknown: this.unknown.size };
  }

  find(formId: string): Promise<Form | undefined> {
    const known = this.peek(formId);
    if (known !== undefined) return Promise.resolve(known ?? undefined);
    return this.reading.get(formId) ?? this.queue(formId);
  }

  /** What is known now, without waiting: the form, null when no form has the ID, undefined when it must be read. */
  peek(formId: string): Form | null | undefined {
    const now = this.clock();
    const form = this.known.fresh(formId, now);
    if (form) return form.value;
    return this.unknown.fresh(formId, now) ? null : undefined;
  }

  /** Drops what is known about the ID (its form was changed or deleted through this instance). */
  forget(formId: string): void {
    this.known.delete(formId);
    this.unknown.delete(formId);
    // A read already under way may have seen the old row: its result is not kept, and the next
    // lookup reads again. One still waiting for its batch reads the row as it is now.
    if (!this.waiting.has(formId)) this.reading.delete(formId);
  }

  private queue(formId: string): Promise<Form | undefined> {
    let settle!: Pick<Waiting, 'resolve' | 'reject'>;
    const reading = new Promise<Form | undefined>((resolve, reject) => {
      settle = { resolve, reject };
    });
    this.reading.set(formId, reading);
    this.waiting.set(formId, { ...settle, reading });
    this.scheduleBatch();
    return reading;
  }

  /** In the check phase: after the event loop has handed every request that arrived to its handler. */
  private scheduleBatch(): void {
    if (this.batchScheduled || this.batchInFlight || this.waiting.size === 0) return;
    this.batchScheduled = true;
    setImmediate(() => {
      this.batchScheduled = false;
      void this.readBatch();
    });
  }

  private async readBatch(): Promise<void> {
    const batch = new Map<string, Waiting>();
    for (const [formId, waiting] of this.waiting) {
      batch.set(formId, waiting);
      this.waiting.delete(formId);
      if (batch.size === FORM_READ_BATCH) break;
    }
    this.batchInFlight = true;
    // Fresh from when the read started: a change after that is seen within the TTL.
    const until = this.clock() + FORM_CACHE_TTL_MS;
    try {
      const forms = new Map((await this.readMany([...batch.keys()])).map((form) => [form.id, form]));
      for (const [formId, waiting] of batch) {
        const form = forms.get(formId);
        if (this.reading.get(formId) === waiting.reading) {
          this.reading.delete(formId);
          this.remember(formId, form, until);
        }
        waiting.resolve(form);
      }
    } catch (err) {
      for (const [formId, waiting] of batch) {
        if (this.reading.get(formId) === waiting.reading) this.reading.delete(formId);
        waiting.reject(err);
      }
    } finally {
      this.batchInFlight = false;
      this.scheduleBatch();
    }
  }

  private remember(formId: string, form: Form | undefined, until: number): void {
    if (form) {
      this.known.set(formId, form, until);
      this.unknown.delete(formId);
    } else {
      this.unknown.set(formId, true, until);
      this.known.delete(formId);
    }
  }
}
