/**
 * Plain-number tallies for the metrics (SPEC 24): a dispatch adds 1 to a number; an
 * observable counter reads the totals when the reader collects. The OpenTelemetry SDK hashes
 * an attribute set on every `add` (about half a microsecond); here a series' attribute set is
 * made once and the hot path touches one number.
 */

export type AttributeValue = string | boolean;
export type Attributes = Readonly<Record<string, AttributeValue>>;

/** One series: its attribute set, made once, and its running total. */
export interface Slot {
  readonly attributes: Attributes;
  value: number;
}

/** The SDK's own attribute for series past its cardinality limit (2000 per instrument), which this mirrors. */
const OVERFLOW: Attributes = Object.freeze({ "otel.metric.overflow": true });
const MAX_SERIES = 2000;

export class Tally {
  private readonly slots = new Map<string, Slot>();
  private overflow: Slot | undefined;

  /** The series `key` names, its attributes made by `make` the first time. */
  slot(key: string, make: () => Record<string, string>): Slot {
    let slot = this.slots.get(key);
    if (slot === undefined) {
      if (this.slots.size >= MAX_SERIES) return (this.overflow ??= { attributes: OVERFLOW, value: 0 });
      this.slots.set(key, (slot = { attributes: Object.freeze(make()), value: 0 }));
    }
    return slot;
  }

  add(key: string, make: () => Record<string, string>): void {
    this.slot(key, make).value++;
  }

  /** Every series that counted something (as a counter's series appears at its first `add`), with its total. */
  *series(): IterableIterator<Slot> {
    for (const slot of this.slots.values()) if (slot.value > 0) yield slot;
    if (this.overflow !== undefined) yield this.overflow;
  }
}
