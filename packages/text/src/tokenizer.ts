/**
 * A word: letters, digits and combining marks, optionally joined by single
 * inner `.`, `_`, `-` or apostrophes, so `snake_case`, `v1.2`, `state-of-the-art`
 * and `don't` stay one token while trailing punctuation does not stick.
 */
const wordPattern = /[\p{L}\p{N}\p{M}]+(?:['’._-][\p{L}\p{N}\p{M}]+)*/gu;

export interface TokenizeOptions {
  /** Keep the original letter case (default false: tokens are lowercased). */
  preserveCase?: boolean;
}

/**
 * Splits text into word tokens in reading order. Unicode-aware (any script's
 * letters and digits count); punctuation, symbols and whitespace separate
 * tokens. Tokens are lowercased unless `preserveCase` is set.
 */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const tokens = text.match(wordPattern) ?? [];
  if (options.preserveCase) return tokens;
  for (let index = 0; index < tokens.length; index++) tokens[index] = (tokens[index] as string).toLowerCase();
  return tokens;
}

const identifierSeparator = /['’._-]+/;
const camelBoundary = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;

/**
 * The lowercase parts of an identifier-like token: split on `.`, `_`, `-`,
 * apostrophes and camelCase boundaries (`getHTTPServer` → get, http, server;
 * `snake_case` → snake, case). A plain word yields itself, lowercased.
 */
export function splitIdentifier(token: string): string[] {
  const parts: string[] = [];
  for (const piece of token.split(identifierSeparator)) {
    if (piece === "") continue;
    for (const part of piece.split(camelBoundary)) if (part !== "") parts.push(part.toLowerCase());
  }
  return parts;
}

const stopwords = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being below between both but by " +
    "can could did do does doing down during each few for from further had has have having he her here hers herself him " +
    "himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other " +
    "our ours ourselves out over own same she should so some such than that the their theirs them themselves then there " +
    "these they this those through to too under until up very was we were what when where which while who whom why will " +
    "with would you your yours yourself yourselves also may might must shall us let"
  ).split(" "),
);

/** Whether a lowercase token is an English function word that carries little meaning on its own. */
export function isStopword(token: string): boolean {
  return stopwords.has(token);
}

const plainWord = /^\p{Ll}+$/u;

/**
 * A light, deterministic English stemmer for matching (not for display):
 * folds plurals and -ing/-ed forms so `indexes`, `indexing` and `indexed`
 * meet `index`. Tokens holding digits or separators (identifiers, versions)
 * are returned unchanged, because stemming `v1.2s` or `user_ids` would lose
 * what makes them findable.
 */
export function toStem(token: string): string {
  if (token.length <= 3 || !plainWord.test(token)) return token;
  let stem = token;
  if (stem.endsWith("ies") && stem.length > 4) stem = `${stem.slice(0, -3)}y`;
  else if (stem.endsWith("sses")) stem = stem.slice(0, -2);
  else if (/(?:xes|ches|shes|zes)$/.test(stem)) stem = stem.slice(0, -2);
  else if (stem.endsWith("s") && !/(?:ss|us|is)$/.test(stem)) stem = stem.slice(0, -1);
  if (stem.endsWith("ing") && stem.length > 5) stem = undoubled(stem.slice(0, -3));
  else if (stem.endsWith("ed") && stem.length > 4) stem = undoubled(stem.slice(0, -2));
  // A final silent e comes and goes with inflection (cache, caching, cached).
  if (stem.length > 3 && stem.endsWith("e")) stem = stem.slice(0, -1);
  return stem;
}

function undoubled(stem: string): string {
  const last = stem.charAt(stem.length - 1);
  // "running" → "runn" → "run", but "falling" keeps "fall" like "fall" itself.
  if (stem.length > 2 && last === stem.charAt(stem.length - 2) && !"lsz".includes(last)) return stem.slice(0, -1);
  return stem;
}
