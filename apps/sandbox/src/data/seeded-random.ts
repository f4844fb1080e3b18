import { hash } from 'node:crypto';

/**
 * Fixture data must be the same on every run and after a restart, so every draw comes from a PRNG seeded
 * from a hash of stable inputs, never from Math.random.
 */
export class SeededRandom {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string) {
    // The one-shot hash: a seeded generator is made per generated day, so this is on the hot path.
    const digest = hash('sha256', seed, 'buffer');
    this.a = digest.readUInt32LE(0);
    this.b = digest.readUInt32LE(4);
    this.c = digest.readUInt32LE(8);
    this.d = digest.readUInt32LE(12);
    // Warm up so similar seeds diverge before the first draw that matters.
    for (let i = 0; i < 12; i += 1) this.nextUint32();
  }

  /** sfc32: small, fast and good enough for fixture data. */
  nextUint32(): number {
    this.a >>>= 0;
    this.b >>>= 0;
    this.c >>>= 0;
    this.d >>>= 0;
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** Picks by weight: `weights[i]` is the relative chance of index i. */
  weighted(weights: readonly number[], total: number): number {
    let roll = this.next() * total;
    for (let i = 0; i < weights.length; i += 1) {
      roll -= weights[i];
      if (roll < 0) return i;
    }
    return weights.length - 1;
  }

  /** Advances past `count` draws without using them: what a draw-for-draw replay skips. */
  skip(count: number): void {
    // nextUint32 unrolled over locals: the amounts-only replay skips most of its draws.
    let { a, b, c, d } = this;
    for (let i = 0; i < count; i += 1) {
      const t = (((a + b) | 0) + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (c << 21) | (c >>> 11);
      c = (c + t) | 0;
    }
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
  }

  digits(count: number): string {
    // Joined, not concatenated digit by digit: `+=` leaves a rope of one-character strings, and the
    // thousands of account numbers a sandbox holds would keep them all.
    const out = new Array<number>(count);
    for (let i = 0; i < count; i += 1) out[i] = this.int(0, 9);
    return out.join('');
  }
}

/**
 * cyrb128: a fast, well-mixed 128-bit string hash (not cryptographic). Ids of thousands of generated
 * records come from it, where a SHA-256 each would dominate generation time.
 */
function hash128(input: string): string {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < input.length; i += 1) {
    const k = input.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return hex8(h1) + hex8(h2) + hex8(h3) + hex8(h4);
}

const HEX_BYTES = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** A 32-bit word as 8 hex digits, by table: thousands of ids a page make toString(16) show in profiles. */
const hex8 = (n: number) =>
  HEX_BYTES[n >>> 24] + HEX_BYTES[(n >>> 16) & 255] + HEX_BYTES[(n >>> 8) & 255] + HEX_BYTES[n & 255];

/** A UUID-shaped id (version 4 layout) derived from a hash, so it is stable for the same input. */
export function stableUuid(input: string): string {
  const hex = hash128(input);
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  // Joined rather than templated: a join is one flat string, where a template would keep a rope of its
  // parts alive in every cached account.
  return [
    hex.slice(0, 8),
    hex.slice(8, 12),
    `4${hex.slice(13, 16)}`,
    variant + hex.slice(17, 20),
    hex.slice(20, 32),
  ].join('-');
}

/** The enrichment transaction hash, in the upstream's `<32 hex>.<n>` form. */
export function transactionHash(input: string): string {
  return `${hash128(`hash:${input}`)}.1`;
}
