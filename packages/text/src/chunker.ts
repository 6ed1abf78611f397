/** One chunk of a text: `[start, end)` in UTF-16 offsets; `ordinal` counts from 0. */
export interface TextChunk {
  ordinal: number;
  start: number;
  end: number;
}

export interface ChunkOptions {
  /** Largest chunk, in UTF-16 code units. */
  size: number;
  /** How far each chunk reaches back into the previous one; at most half of `size`. */
  overlap: number;
}

export const defaultChunkOptions: Readonly<ChunkOptions> = Object.freeze({ size: 1500, overlap: 200 });

/**
 * Cuts a text into overlapping chunks for embedding.
 *
 * Contract: chunks are in order, each at most `size` long, together they
 * cover every offset of the text (each chunk starts at or before the end of
 * the previous one), and consecutive chunks overlap by at most `overlap`.
 * A chunk ends, in order of preference, after a paragraph break, a line
 * break, a sentence end or a space found in the back half of its window, and
 * only otherwise mid-word (never inside a surrogate pair). A chunk after the
 * first starts at a word start inside the overlap. A text that is empty or
 * only whitespace has no chunks.
 *
 * @throws RangeError when `size` < 2 or `overlap` is negative or above `size / 2`.
 */
export function chunkText(text: string, options: ChunkOptions = defaultChunkOptions): TextChunk[] {
  const { size, overlap } = options;
  if (!Number.isInteger(size) || size < 2)
    throw new RangeError(`chunk size must be an integer of at least 2, got ${size}`);
  if (!Number.isInteger(overlap) || overlap < 0 || overlap > Math.floor(size / 2)) {
    throw new RangeError(`chunk overlap must be an integer from 0 to ${Math.floor(size / 2)}, got ${overlap}`);
  }
  if (!/\S/.test(text)) return [];
  const chunks: TextChunk[] = [];
  let start = 0;
  for (;;) {
    if (text.length - start <= size) {
      chunks.push({ ordinal: chunks.length, start, end: text.length });
      return chunks;
    }
    // Breaking in the back half keeps chunks from shrinking to slivers and guarantees end - overlap > start.
    const end = findBreak(text, start + Math.floor(size / 2) + 1, start + size);
    chunks.push({ ordinal: chunks.length, start, end });
    start = overlap === 0 ? end : toWordStart(text, end - overlap, end);
  }
}

function isSpace(code: number): boolean {
  return (
    code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0x2028 || code === 0x2029 || code === 0x3000
  );
}

/**
 * The best end in [lowest, highest] for a chunk: just after a paragraph
 * break, line break, sentence end or space. Looks only inside the window
 * (`lastIndexOf` would search back to the start of the text whenever the
 * window has no break, which makes chunking a long text quadratic).
 */
function findBreak(text: string, lowest: number, highest: number): number {
  for (let at = highest - 2; at >= lowest - 2; at--) {
    if (text.charCodeAt(at) === 10 && text.charCodeAt(at + 1) === 10) return at + 2;
  }
  for (let at = highest - 1; at >= lowest - 1; at--) {
    if (text.charCodeAt(at) === 10) return at + 1;
  }
  for (let at = highest - 2; at >= lowest - 1; at--) {
    const code = text.charCodeAt(at);
    if ((code === 46 || code === 33 || code === 63) && isSpace(text.charCodeAt(at + 1))) return at + 2;
  }
  for (let at = highest - 1; at >= lowest - 1; at--) {
    if (isSpace(text.charCodeAt(at))) return at + 1;
  }
  const code = text.charCodeAt(highest - 1);
  return code >= 0xd800 && code <= 0xdbff ? highest - 1 : highest;
}

/** The first word start in [from, before), or `from` itself (nudged off a surrogate pair) when there is none. */
function toWordStart(text: string, from: number, before: number): number {
  for (let at = from; at < before; at++) {
    if (!isSpace(text.charCodeAt(at)) && (at === 0 || isSpace(text.charCodeAt(at - 1)))) return at;
  }
  const code = text.charCodeAt(from);
  return code >= 0xdc00 && code <= 0xdfff ? from + 1 : from;
}
