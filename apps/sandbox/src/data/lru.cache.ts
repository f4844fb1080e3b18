/**
 * A least-recently-used map bounded by entry count: the sandbox's caches of things that are cheap to
 * compute again (account sets, balance summaries), so memory stays flat however many consents exist.
 */
export class Lru<K, V> {
  private entries = new Map<K, V>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Map order is insertion order: re-inserting marks the entry most recently used.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): V {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
    return value;
  }

  /** The cached value, or a new one computed and cached. */
  getOrSet(key: K, compute: () => V): V {
    return this.get(key) ?? this.set(key, compute());
  }

  deleteWhere(test: (key: K) => boolean): void {
    for (const key of [...this.entries.keys()]) if (test(key)) this.entries.delete(key);
  }

  clear(): void {
    this.entries = new Map();
  }
}
