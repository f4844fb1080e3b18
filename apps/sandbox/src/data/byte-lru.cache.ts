/**
 * One byte-bounded least-recently-used cache for every serialised record and page of the data area.
 * Separate per-account and per-variant caches multiplied into gigabytes; a single budget cannot.
 */
export const SERIALISED_CACHE_BYTES = 128 * 1024 * 1024;

/** What an entry costs beyond its bytes: the key, the Map slot and the Buffer object. */
const ENTRY_OVERHEAD = 160;

export class ByteLru {
  private entries = new Map<string, Buffer>();
  private used = 0;

  constructor(readonly maxBytes: number) {}

  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): Buffer | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Map order is insertion order: re-inserting marks the entry most recently used.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Stores the value unless it alone exceeds the budget, evicting the least recently used first. */
  set(key: string, value: Buffer): Buffer {
    this.delete(key);
    const cost = ByteLru.cost(key, value);
    if (cost > this.maxBytes) return value;
    this.used += cost;
    this.entries.set(key, value);
    for (const [oldest, old] of this.entries) {
      if (this.used <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.used -= ByteLru.cost(oldest, old);
    }
    return value;
  }

  delete(key: string): void {
    const old = this.entries.get(key);
    if (old === undefined) return;
    this.entries.delete(key);
    this.used -= ByteLru.cost(key, old);
  }

  clear(): void {
    this.entries = new Map();
    this.used = 0;
  }

  static cost(key: string, value: Buffer): number {
    return value.length + key.length * 2 + ENTRY_OVERHEAD;
  }
}

/**
 * UTF-8 bytes in a Buffer of their own. `Buffer.from` puts small strings in shared 8 KB pool slabs, and a
 * cached record would keep its whole slab alive after its neighbours were evicted, so the byte count
 * would understate the memory held.
 */
export function ownBuffer(text: string): Buffer {
  const buffer = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  buffer.write(text);
  return buffer;
}

/** `Buffer.concat` into a Buffer of its own (see `ownBuffer`). */
export function concatOwn(chunks: readonly Buffer[]): Buffer {
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  const out = Buffer.allocUnsafeSlow(length);
  let at = 0;
  for (const chunk of chunks) at += chunk.copy(out, at);
  return out;
}
