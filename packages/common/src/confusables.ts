/**
 * Folding text to what a reader sees, so that a rule written for ASCII
 * letters also matches the same word spelt with invisible characters,
 * accents, compatibility forms or letters of another script that look the
 * same. Used by the write-time instruction screen and by the gateway's
 * untrusted-data fence; never applied to what is stored or returned.
 *
 * Every function here is linear in its input: one pass of single-character
 * regexes, `String.prototype.normalize` and per-character table lookups.
 */

/**
 * Code points a reader does not see: every default-ignorable code point
 * (zero-width and joiner characters, soft hyphen, combining grapheme joiner,
 * variation selectors, the Mongolian vowel separator, bidi controls, Hangul
 * fillers, tag characters…), interlinear annotation marks, and control
 * characters other than whitespace.
 */
const invisible = /[\p{Default_Ignorable_Code_Point}\uFFF9-\uFFFB]|[^\P{Cc}\t\n\v\f\r\u0085]/gu;

/** Combining marks that sit on a letter (accents, overlays, enclosing circles), as they are after compatibility decomposition. */
const combiningMark = /[\p{Mn}\p{Me}]/gu;

/**
 * Letters and brackets of other scripts (Cyrillic, Greek, Armenian,
 * Cherokee, Latin small capitals and IPA letters, Hebrew, Canadian
 * syllabics, mathematical angle brackets) that look like an ASCII letter
 * or bracket and that compatibility normalisation (NFKD) leaves alone.
 * Case is kept where the look-alike has one, because some screen rules are
 * case-sensitive. Each key is the ASCII a reader takes the characters for.
 */
const lookAlikeGroups: readonly (readonly [string, string])[] = [
  ["A", "\u0410\u0391\u13AA\u1D00"],
  ["B", "\u0412\u0392\u13F4\u0299"],
  ["C", "\u0421\u03F9\u13DF\u1D04"],
  ["D", "\u13A0\u1D05"],
  ["E", "\u0415\u0395\u13AC\u1D07"],
  ["F", "\u03DC\uA730"],
  ["G", "\u13C0\u050C\u0262"],
  ["H", "\u041D\u0397\u13BB\u029C"],
  ["I", "\u0406\u0399\u04C0\u026A"],
  ["J", "\u0408\u13AB\u037F\u1D0A"],
  ["K", "\u041A\u039A\u13E6\u1D0B"],
  ["L", "\u13DE\u029F"],
  ["M", "\u041C\u039C\u13B7\u1D0D"],
  ["N", "\u039D\u0274"],
  ["O", "\u041E\u039F\u0555\u1D0F"],
  ["P", "\u0420\u03A1\u13E2\u1D18"],
  ["Q", "\u051A"],
  ["R", "\u13A1\u0280"],
  ["S", "\u0405\u13DA\uA731"],
  ["T", "\u0422\u03A4\u13A2\u1D1B"],
  ["U", "\u054D\u1D1C"],
  ["V", "\u13D9\u1D20"],
  ["W", "\u051C\u13B3\u1D21"],
  ["X", "\u0425\u03A7"],
  ["Y", "\u0423\u04AE\u03A5\u03D2\u028F"],
  ["Z", "\u0396\u13C3\u1D22"],
  ["a", "\u0430\u03B1\u0251"],
  ["b", "\u044C\u0432"],
  ["c", "\u0441\u03F2\u03C2"],
  ["d", "\u0501"],
  ["e", "\u0435\u03B5\u0454"],
  ["g", "\u0261\u0581"],
  ["h", "\u04BB\u0570\u043D"],
  ["i", "\u0456\u03B9\u0131\u0269"],
  ["j", "\u0458\u03F3\u0237"],
  ["k", "\u043A\u03BA"],
  ["l", "\u04CF\u05D5"],
  ["m", "\u043C"],
  ["n", "\u0578\u03B7\u043F"],
  ["o", "\u043E\u03BF\u0585\u03C3"],
  ["p", "\u0440\u03C1"],
  ["q", "\u051B\u0566"],
  ["r", "\u0433"],
  ["s", "\u0455"],
  ["t", "\u0442\u03C4"],
  ["u", "\u057D\u03C5\u0446"],
  ["v", "\u03BD\u0475"],
  ["w", "\u051D\u03C9\u0448"],
  ["x", "\u0445\u03C7"],
  ["y", "\u0443\u04AF\u03B3"],
  ["<", "\u2039\u227A\u3008\u27E8\u1438\u02C2\u2329\u22D6"],
  [">", "\u203A\u227B\u3009\u27E9\u1405\u02C3\u232A"],
  ["<<", "\u00AB\u226A\u300A\u27EA"],
  [">>", "\u00BB\u226B\u300B\u27EB"],
  ["<<<", "\u22D8"],
  [">>>", "\u22D9"],
  ["/", "\u2044\u2215\u29F8"],
];

const lookAlikes: ReadonlyMap<string, string> = new Map(
  lookAlikeGroups.flatMap(([latin, characters]) => [...characters].map((character) => [character, latin] as const)),
);

/** Every look-alike in the table, as one character class: for a quick test whether a text needs folding at all. */
const lookAlikeCharacter = new RegExp(`[${[...lookAlikes.keys()].join("")}]`, "gu");

/** `text` without the code points a reader does not see (see `invisible`). */
export function stripInvisible(text: string): string {
  return text.replace(invisible, "");
}

/**
 * What a reader takes `text` for, spelt in ASCII where the letters look
 * like ASCII: invisible characters removed, compatibility forms decomposed
 * (NFKD: full-width and mathematical letters, ligatures, circled letters),
 * accents and other combining marks removed, and look-alike letters and
 * brackets of other scripts replaced by the ASCII they look like. Case is
 * kept. Line breaks and other whitespace are kept as they are. The result
 * is for matching only: it is not a faithful rendering of non-Latin text.
 */
export function toConfusableSkeleton(text: string): string {
  if (text.length <= chunkLength) return skeletonOf(text);
  // Long texts are folded a chunk at a time: the same result, but each step's work stays small enough to be cache-local,
  // where one normalisation of a megabyte of changed characters costs several times as much per character.
  const parts: string[] = [];
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + chunkLength);
    // Never cut between a character and its combining marks, nor inside a surrogate pair.
    while (end < text.length && continuesCharacter.test(text[end]!)) end += 1;
    parts.push(skeletonOf(text.slice(start, end)));
    start = end;
  }
  return parts.join("");
}

const chunkLength = 16_384;
const continuesCharacter = /[\p{M}\uDC00-\uDFFF]/u;

function skeletonOf(text: string): string {
  return text
    .replace(invisible, "")
    .normalize("NFKD")
    .replace(combiningMark, "")
    .replace(lookAlikeCharacter, (character) => lookAlikes.get(character) ?? character);
}

const foldCache = new Map<string, string>();

/**
 * The skeleton of one code point (a string of one or two UTF-16 units):
 * `""` for an invisible character or a combining mark, otherwise what
 * `toConfusableSkeleton` makes of it alone. For scanners that must map a
 * match back to positions in the original text.
 */
export function foldCodePoint(codePoint: string): string {
  if (codePoint.length === 1 && codePoint.charCodeAt(0) < 0x80)
    return /[\t\n\v\f\r\x20-\x7E]/.test(codePoint) ? codePoint : "";
  let folded = foldCache.get(codePoint);
  if (folded === undefined) {
    folded = toConfusableSkeleton(codePoint);
    // Bounded: a text can name at most every code point once, and most texts use a few hundred.
    if (foldCache.size < 65_536) foldCache.set(codePoint, folded);
  }
  return folded;
}
