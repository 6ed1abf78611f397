/**
 * Longest summary, and longest node summary, an entry may carry, in UTF-16
 * code units. The store refuses anything longer; the summarizer cuts every
 * provider's answer to fit, so a write never fails on it.
 */
export const summaryCharLimit = 20_000;

/** Longest heading a node summary may carry, in UTF-16 code units; the summarizer cuts longer headings to fit. */
export const headingCharLimit = 1_000;
