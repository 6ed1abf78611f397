/**
 * The token budget of a session start: which items of each part fit. Parts
 * are filled in priority order until an item does not fit, so when the
 * answer would be too long the least needed part loses its items first, and
 * a part is cut only once every part after it is empty.
 */

/** The parts, most needed first: work addressed to the agent, then standing knowledge, then history. */
export const keepOrder = ["handoffs", "pinned_memories", "session_summary", "session_events", "entries"] as const;
export type StartPartName = (typeof keepOrder)[number];

/** The order parts are cut in: the reverse of keepOrder. */
export const cutOrder: readonly StartPartName[] = [...keepOrder].reverse();

/** How many items of each part are kept. */
export type Kept = Record<StartPartName, number>;

/*
 * The pieces a GPT-style tokenizer (cl100k_base's pre-tokenizer) splits text
 * into before merging: a word with its leading space, up to three digits, a
 * run of punctuation, a run of whitespace. Most pieces are one token. Ids
 * (UUIDs) and runs of 16 or more hex digits (fence nonces, hashes) come
 * first, as pieces of their own.
 */
const tokenPiece =
  /(?: |(?<![0-9A-Za-z]))[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}(?![0-9A-Za-z])|(?: |(?<![0-9A-Za-z]))[0-9a-f]{16,}(?![0-9A-Za-z])|'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;
const uuid = /^[0-9a-f]{8}-/;
const hexRun = /^[0-9a-f]{16,}$/;
const asciiOnly = /^\p{ASCII}*$/u;
const wideCharacter = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

/*
 * What cl100k_base spends on random hex, on average over 2,000 draws: 24
 * tokens per UUID, 0.58 per hex digit of a longer run. Counting them by
 * shape, not by their digits, keeps the estimate of an answer the same
 * whatever ids and nonce it carries, so that two answers that differ only
 * in those are cut alike.
 */
const uuidTokens = 24;
const hexDigitsPerToken = 1.7;

/**
 * Tokens a model is charged for `text`, estimated without a tokenizer: a
 * UUID counts 24 tokens and a run of hex digits one per 1.7 of them; any
 * other pre-tokenizer piece one token per six characters (at least one),
 * outside ASCII one per two characters, and one per character of Chinese,
 * Japanese or Korean script. Characters / 4 would undercount a start_here
 * answer by a third (ids, nonces and indentation tokenise densely); this
 * estimate comes within a few per cent of cl100k_base on them
 * (bench/start-here-tokens.js; docs/workflow.md has the figures).
 */
export function estimateTokens(text: string): number {
  let tokens = 0;
  for (const [match] of text.matchAll(tokenPiece)) {
    const piece = match.trimStart();
    if (uuid.test(piece)) tokens += uuidTokens;
    else if (hexRun.test(piece)) tokens += Math.ceil(piece.length / hexDigitsPerToken);
    else if (asciiOnly.test(piece)) tokens += Math.max(1, Math.ceil(piece.length / 6));
    else {
      const wide = piece.match(wideCharacter)?.length ?? 0;
      tokens += Math.max(1, wide + Math.ceil((piece.length - wide) / 2));
    }
  }
  return tokens;
}

/**
 * Chooses how many items of each part to keep within `maxTokens`.
 *
 * `costs[part]` are the estimated tokens of each item of a part, in the order
 * its items are kept; `answerTokens(kept)` estimates the whole answer with
 * that many items of each part. The fixed answer (every part empty) is
 * charged first; then the parts are filled in keepOrder, each item while it
 * fits in what is left. The first item that does not fit ends the filling:
 * it and everything after it are left out, so a part shows items only when
 * every part before it is whole, and each part shows a prefix of its order.
 * Last, the whole answer is measured, and while it exceeds the budget (item
 * costs leave out the separators between items) items are dropped from the
 * end, in cutOrder. Only an answer whose fixed part alone exceeds the budget
 * keeps nothing and still exceeds it.
 */
export function fitToBudget(
  costs: Readonly<Record<StartPartName, readonly number[]>>,
  maxTokens: number,
  answerTokens: (kept: Kept) => number,
): Kept {
  const kept: Kept = { handoffs: 0, pinned_memories: 0, session_summary: 0, session_events: 0, entries: 0 };
  let left = maxTokens - answerTokens(kept);
  filling: for (const part of keepOrder) {
    for (const cost of costs[part]) {
      if (cost > left) break filling;
      kept[part] += 1;
      left -= cost;
    }
  }
  while (answerTokens(kept) > maxTokens) {
    const part = cutOrder.find((name) => kept[name] > 0);
    if (part === undefined) break;
    kept[part] -= 1;
  }
  return kept;
}
