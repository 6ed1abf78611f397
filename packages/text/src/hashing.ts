/**
 * 32-bit FNV-1a over the UTF-16 code units of `text`, as an unsigned integer.
 * Stable across processes and platforms, so anything derived from it (hash
 * table slots, fallback word vectors) is reproducible.
 */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * Adds a seeded pseudo-random sequence (mulberry32, floats in [-1, 1)) to
 * `target`, element by element. Small, fast and deterministic: the same seed
 * adds the same numbers. It writes in place rather than returning a
 * generator, so no closure call or boxed float is paid per value (the hashed
 * word vectors draw hundreds of thousands of them per text full of unknown
 * tokens).
 */
export function addSeededRandom(target: Float64Array, seed: number): void {
  let state = seed >>> 0;
  for (let index = 0; index < target.length; index++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    target[index] = (target[index] as number) + ((((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1);
  }
}
