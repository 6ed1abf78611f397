// A plain BM25 to measure the hub against, computed in the same run as the hub's figures: lower-cased alphanumeric
// tokens, a short stop list, crude suffix stripping, k1 1.2 and b 0.75. It knows nothing of the hub; it is the bar a
// 40-line search engine sets.

/** Common English function words, left out of documents and queries. */
export const referenceStopwords = new Set(
  (
    "a an and are as at be been but by can do does for from had has have how if in into is it its may no not of on or " +
    "such than that the their then there these they this those to was were what when where which who why will with would"
  ).split(" "),
);

/** Crude suffix stripping: the first matching suffix is dropped when at least three characters remain. */
const suffixes = ["ing", "ed", "es", "s"];

export function stripSuffix(token) {
  for (const suffix of suffixes) {
    if (token.length - suffix.length >= 3 && token.endsWith(suffix)) return token.slice(0, -suffix.length);
  }
  return token;
}

/** The terms of a text: lower-cased runs of letters and digits, stop words dropped, suffixes stripped. */
export function referenceTerms(text) {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? [])
    .filter((token) => !referenceStopwords.has(token))
    .map(stripSuffix);
}

/**
 * An in-memory BM25 index over `docs` ({id, text}). `search(query, depth)` returns doc ids, best first; a query word
 * repeated counts again, ties go to the earlier document.
 */
export function createBm25Index(docs, { k1 = 1.2, b = 0.75 } = {}) {
  const postings = new Map();
  const lengths = [];
  docs.forEach((doc, index) => {
    const terms = referenceTerms(doc.text);
    lengths.push(terms.length);
    const counts = new Map();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, count] of counts) {
      if (!postings.has(term)) postings.set(term, []);
      postings.get(term).push([index, count]);
    }
  });
  const count = docs.length;
  const averageLength = lengths.reduce((sum, length) => sum + length, 0) / Math.max(1, count);
  return {
    search(query, depth = 100) {
      const scores = new Map();
      for (const term of referenceTerms(query)) {
        const list = postings.get(term);
        if (list === undefined) continue;
        const idf = Math.log(1 + (count - list.length + 0.5) / (list.length + 0.5));
        for (const [index, frequency] of list) {
          const norm = frequency + k1 * (1 - b + (b * lengths[index]) / averageLength);
          scores.set(index, (scores.get(index) ?? 0) + (idf * frequency * (k1 + 1)) / norm);
        }
      }
      return [...scores.entries()]
        .sort((left, right) => right[1] - left[1] || left[0] - right[0])
        .slice(0, depth)
        .map(([index]) => docs[index].id);
    },
  };
}
