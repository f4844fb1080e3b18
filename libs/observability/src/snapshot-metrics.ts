import type { Metric, Registry } from 'prom-client';

/** A histogram counted elsewhere (a database's `width_bucket` per bucket), set wholesale at each scrape. */
export interface HistogramCounts {
  /** Per bucket, not cumulative: `counts[i]` values fell in (buckets[i-1], buckets[i]]; one more for +Inf. */
  counts: readonly number[];
  sum: number;
}

export interface SnapshotHistogramOptions {
  name: string;
  help: string;
  /** Upper bounds, ascending; +Inf is implied. */
  buckets: readonly number[];
  registers: Registry[];
  /** Read at each scrape; undefined: nothing known yet (no samples, only the HELP line). */
  collect: () => Promise<HistogramCounts | undefined>;
}

/**
 * A Prometheus histogram whose buckets are read whole rather than observed one value at a time:
 * prom-client's Histogram can only `observe`, which would mean one call per account. Exposes the same
 * `_bucket{le}`, `_sum` and `_count` series, so `histogram_quantile` works on it as on any other.
 */
export class SnapshotHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly buckets: readonly number[];
  private readonly read: SnapshotHistogramOptions['collect'];

  constructor(options: SnapshotHistogramOptions) {
    this.name = options.name;
    this.help = options.help;
    this.buckets = options.buckets;
    this.read = options.collect;
    // The registry takes any object with a name and an async get(); prom-client's types list only its own.
    for (const registry of options.registers) registry.registerMetric(this as unknown as Metric);
  }

  async get() {
    const snapshot = await this.read();
    const values: { value: number; labels: Record<string, string | number>; metricName: string }[] = [];
    if (snapshot) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += snapshot.counts[i] ?? 0;
        values.push({ value: cumulative, labels: { le }, metricName: `${this.name}_bucket` });
      });
      cumulative += snapshot.counts[this.buckets.length] ?? 0;
      values.push({ value: cumulative, labels: { le: '+Inf' }, metricName: `${this.name}_bucket` });
      values.push({ value: snapshot.sum, labels: {}, metricName: `${this.name}_sum` });
      values.push({ value: cumulative, labels: {}, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Registry.resetMetrics() calls this on every metric; there is nothing of ours to reset. */
  reset(): void {}
}

/**
 * A value loaded at most once per `maxAgeMs`, however many read it at once: concurrent scrapes share one
 * load, and a scrape within the age reads the last one. A failed load keeps the last good value (a
 * gauge that vanishes mid-outage would make alerts on it resolve) and is reported to `onError`.
 */
export class RefreshingSnapshot<T> {
  private value: T | undefined;
  /** When a load last ended, well or not: the next waits `maxAgeMs` from here either way. */
  private loadedAt = -Infinity;
  private succeededAt: number | undefined;
  private loading: Promise<T | undefined> | undefined;

  constructor(
    private readonly load: () => Promise<T>,
    private readonly maxAgeMs: number,
    private readonly onError: (error: unknown) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get(): Promise<T | undefined> {
    if (this.now() - this.loadedAt < this.maxAgeMs) return Promise.resolve(this.value);
    this.loading ??= this.load().then(
      (value) => {
        this.value = value;
        this.loadedAt = this.now();
        this.succeededAt = this.loadedAt;
        this.loading = undefined;
        return value;
      },
      (error: unknown) => {
        // Tried again at the next scrape, not hammered by each gauge of this one.
        this.loadedAt = this.now();
        this.loading = undefined;
        this.onError(error);
        return this.value;
      },
    );
    return this.loading;
  }

  /** Seconds since the value was last loaded well; undefined before the first good load. */
  ageSeconds(): number | undefined {
    return this.succeededAt === undefined ? undefined : (this.now() - this.succeededAt) / 1000;
  }
}
