import { randomFillSync } from "node:crypto";

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const state = { millis: -1, counter: 0 };

// Random bytes are drawn from a pool refilled 4 KB at a time: one system call per few hundred ids, not two per id.
const pool = new Uint8Array(4096);
let poolOffset = pool.length;

function randomBytes(count: number): Uint8Array {
  if (poolOffset + count > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += count;
  return pool.subarray(poolOffset - count, poolOffset);
}

function seedCounter(): number {
  const random = randomBytes(2);
  // A random start in the lower half leaves at least 2048 increments before the 12-bit counter overflows.
  return ((random[0]! << 8) | random[1]!) & 0x7ff;
}

/**
 * A new UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then a 12-bit
 * counter in `rand_a` (method 1 of §6.2) and 62 random bits. Ids from this
 * process are strictly increasing even within one millisecond or when the
 * clock steps back, so id order is creation order and the primary key
 * B-tree only ever appends.
 */
export function createUuidV7(now: number = Date.now()): string {
  if (now > state.millis) {
    state.millis = now;
    state.counter = seedCounter();
  } else if (state.counter < 0xfff) {
    state.counter += 1;
  } else {
    // Counter exhausted within one millisecond: borrow the next one, as §6.2 allows.
    state.millis += 1;
    state.counter = seedCounter();
  }
  const random = randomBytes(8);
  const bytes = new Uint8Array(16);
  let millis = state.millis;
  for (let index = 5; index >= 0; index--) {
    bytes[index] = millis % 256;
    millis = Math.floor(millis / 256);
  }
  bytes[6] = 0x70 | (state.counter >> 8);
  bytes[7] = state.counter & 0xff;
  bytes[8] = 0x80 | (random[0]! & 0x3f);
  bytes.set(random.subarray(1, 8), 9);
  const hex = Buffer.from(bytes).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Whether `value` is a UUID in canonical lowercase hyphenated form. */
export function isUuid(value: string): boolean {
  return uuidPattern.test(value);
}

/** The millisecond timestamp a UUIDv7 carries. */
export function toUuidV7Millis(id: string): number {
  return Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16);
}
