/**
 * Limits on what a write may carry, enforced twice: by the gateway's tool
 * input schemas (so a caller gets a clear error before any work starts) and
 * by the store's validation (so a gRPC caller that skips the gateway meets
 * the same bounds). Both read them from here, so the two cannot drift.
 * Lengths are in UTF-16 code units, as JavaScript counts them.
 */
export const entryLimits = {
  /** A thread id: 1 to this many characters. */
  threadIdChars: 256,
  /** An entry's text. */
  textChars: 1_000_000,
  /** Images per entry. */
  images: 10,
  /** Decoded bytes of one image (10 MiB). */
  imageBytes: 10 * 1024 * 1024,
  /** An entry's title, after trimming; one line. */
  titleChars: 300,
  /** An entry kind's name: a lowercase letter, then lowercase letters, digits, `_` or `-`. */
  kindChars: 32,
  /** Kinds one filter may name. */
  filterKinds: 20,
  /** Arguments one prompt entry may declare. */
  promptArguments: 20,
  /** A prompt argument's name: a letter or `_`, then letters, digits or `_`. */
  promptArgumentNameChars: 64,
  /** A prompt's name: a letter or `_`, then letters, digits, `_`, `.` or `-`. */
  promptNameChars: 64,
  /** A prompt argument's description, after trimming. */
  promptArgumentDescriptionChars: 500,
  /** Artifacts one entry may link (hex SHA-256 of their bytes). */
  artifactLinks: 20,
  /** Tags per entry. */
  tags: 50,
  /** One tag, after trimming. */
  tagChars: 100,
  /** Metadata serialised as JSON, in UTF-8 bytes (64 KiB). */
  metadataBytes: 64 * 1024,
  /** A top-level metadata key (on an entry, and in a metadata filter): 1 to this many characters. */
  metadataKeyChars: 128,
  /** Levels of objects and arrays in metadata, the object itself being level 1. */
  metadataDepth: 32,
  /** Conditions in one metadata filter. */
  metadataConditions: 20,
  /** UTC days of daily activity one statistics call may ask for. */
  statisticsDays: 366,
  /** Entries, updates or ids in one call. */
  itemsPerCall: 100,
  /** Rows in one page of a listing. */
  pageSize: 100,
  /** The deepest offset a listing pages to. */
  maxOffset: 10_000,
} as const;

/**
 * Longest summary, and longest node summary, an entry may carry, in UTF-16
 * code units. The store refuses anything longer; the summarizer cuts every
 * provider's answer to fit, so a write never fails on it.
 */
export const summaryCharLimit = 20_000;

/** Longest heading a node summary may carry, in UTF-16 code units; the summarizer cuts longer headings to fit. */
export const headingCharLimit = 1_000;

/**
 * Bounds of one cited answer (the gateway's `reason` tool and the
 * summarizer's Answer call): the question, the evidence passages and their
 * length, and the statements. The evidence stays small enough to work on at
 * once (at most passages × passageChars characters, in linear time).
 */
export const answerLimits = Object.freeze({
  questionChars: 1_000,
  passages: 20,
  passageChars: 2_000,
  maxStatements: 10,
  defaultStatements: 5,
});
