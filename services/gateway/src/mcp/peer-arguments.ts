/**
 * Argument names other memory servers give to tools of the same name, where
 * they mean what one of ours means: accepted beside ours and mapped onto
 * them (docs/compatibility.md has the table). Where a peer's argument means
 * something these tools do not do, it is refused with a message saying what
 * to use instead, rather than silently ignored.
 */
import { z } from "zod";

/** A peer argument's schema, described as the synonym it is. */
const synonymOf = <T extends z.ZodType>(schema: T, ours: string, extra = "") =>
  schema.optional().describe(`Same as ${ours} (the name another memory server uses)${extra}; give one of the two.`);

/**
 * Reports, on `context`, a peer argument given beside ours with a different
 * meaning: both name one setting, so they must agree.
 */
export function checkSynonym(
  context: z.RefinementCtx,
  ours: { name: string; value: unknown },
  theirs: { name: string; value: unknown },
): void {
  if (ours.value === undefined || theirs.value === undefined || ours.value === theirs.value) return;
  context.addIssue({
    code: "custom",
    path: [theirs.name],
    message: `${theirs.name} and ${ours.name} name the same setting and disagree (${JSON.stringify(theirs.value)} vs ${JSON.stringify(ours.value)}); give only ${ours.name}`,
  });
}

/** read_context_range: the peer's start_char/end_char are our start/end (0-based, end exclusive). */
export const peerRangeFields = {
  start_char: synonymOf(z.number().int().min(0), "start", " (first character, 0-based)"),
  end_char: synonymOf(z.number().int().min(1), "end", " (the character after the last one read)"),
};

/** The character range of a read_context_range call, whichever names it used. */
export function charRange(args: {
  start?: number | undefined;
  end?: number | undefined;
  start_char?: number | undefined;
  end_char?: number | undefined;
}) {
  return { start: args.start ?? args.start_char, end: args.end ?? args.end_char };
}

export function checkRangeSynonyms(
  value: {
    start?: number | undefined;
    end?: number | undefined;
    start_char?: number | undefined;
    end_char?: number | undefined;
  },
  context: z.RefinementCtx,
): void {
  checkSynonym(context, { name: "start", value: value.start }, { name: "start_char", value: value.start_char });
  checkSynonym(context, { name: "end", value: value.end }, { name: "end_char", value: value.end_char });
}

/** grep_context: is_regex, case_sensitive (the inverse of case_insensitive) and max_entries_scanned. */
export const peerGrepFields = {
  is_regex: synonymOf(z.boolean(), "regex"),
  case_sensitive: z
    .boolean()
    .optional()
    .describe(
      "The inverse of case_insensitive (the name another memory server uses): true matches case exactly (the default); give one of the two.",
    ),
  max_entries_scanned: synonymOf(
    z.number().int().min(1).max(10_000),
    "max_entries",
    " (most entries read, newest first)",
  ),
};

interface GrepArgs {
  regex?: boolean | undefined;
  is_regex?: boolean | undefined;
  case_insensitive?: boolean | undefined;
  case_sensitive?: boolean | undefined;
  max_entries?: number | undefined;
  max_entries_scanned?: number | undefined;
}

/** The grep settings, whichever names the call used. */
export function grepSettings(args: GrepArgs) {
  return {
    regex: args.regex ?? args.is_regex ?? false,
    caseInsensitive: args.case_insensitive ?? (args.case_sensitive === undefined ? false : !args.case_sensitive),
    maxEntries: args.max_entries ?? args.max_entries_scanned ?? 0,
  };
}

export function checkGrepSynonyms(value: GrepArgs, context: z.RefinementCtx): void {
  checkSynonym(context, { name: "regex", value: value.regex }, { name: "is_regex", value: value.is_regex });
  checkSynonym(
    context,
    { name: "case_insensitive", value: value.case_insensitive },
    { name: "case_sensitive", value: value.case_sensitive === undefined ? undefined : !value.case_sensitive },
  );
  checkSynonym(
    context,
    { name: "max_entries", value: value.max_entries },
    { name: "max_entries_scanned", value: value.max_entries_scanned },
  );
}

/** navigate_context: include_node_summaries (default true); false leaves every node's summary empty. */
export const peerNavigateFields = {
  include_node_summaries: z
    .boolean()
    .optional()
    .describe(
      "Include each section's generated summary (default true); false returns them empty, for a smaller outline.",
    ),
};

/**
 * Every search tool: include_images. Search results here carry no image data
 * (they are listings), so false is what they do anyway and true is refused
 * naming the tool that returns images.
 */
export const peerSearchFields = {
  include_images: z
    .literal(false, {
      error:
        "search results carry no image data; fetch the entries you need with get_context_by_ids (include_images: true)",
    })
    .optional()
    .describe(
      "Accepted as false only: search results carry no image data; get_context_by_ids with include_images returns it.",
    ),
};

/** search_context: explain_query, which only the ranked searches answer. */
export const peerListingFields = {
  ...peerSearchFields,
  explain_query: z
    .literal(false, {
      error:
        "search_context returns no query statistics; the ranked searches (fts_search_context, semantic_search_context, hybrid_search_context) take explain_query",
    })
    .optional()
    .describe("Accepted as false only: the ranked searches take explain_query."),
};

/**
 * hybrid_search_context: search_modes. Both legs always run here; a single
 * leg is its own tool, which the refusal names.
 */
export const peerHybridFields = {
  ...peerSearchFields,
  search_modes: z
    .array(z.enum(["fts", "semantic"]))
    .min(1)
    .max(2)
    .optional()
    .refine(
      (modes) => modes === undefined || (modes.includes("fts") && modes.includes("semantic")),
      'hybrid_search_context always runs both legs: give search_modes ["fts", "semantic"] or leave it out; for one leg use fts_search_context or semantic_search_context',
    )
    .describe(
      'Accepted as ["fts", "semantic"] only (both legs, the default); one leg alone is fts_search_context or semantic_search_context.',
    ),
};
