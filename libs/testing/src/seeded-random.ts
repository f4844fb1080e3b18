/**
 * A small deterministic generator (mulberry32) for generated test inputs: a failure names its seed and
 * repeats exactly. `next()` is in [0, 1); `int(n)` in [0, n); `pick` one of the items;
 * `shuffle` a copy in random order.
 */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]) => items[int(items.length)];
  /** A shuffled copy (Fisher–Yates): every order equally likely. */
  const shuffle = <T>(items: readonly T[]): T[] => {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i -= 1) {
      const j = int(i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  };
  return { next, int, pick, shuffle };
}

export type SeededRandom = ReturnType<typeof seededRandom>;
