/** Reading inside one visible entry: its outline (listed, or moved through) and a bounded range of its text. */
import { ContextHubError, invalidArgument } from "@context-hub/common";
import type { StoredEntry } from "../model/entry-model.js";
import { entryNotFound, resolveOne } from "../entries/entry-changes.js";
import type { EntryRepository } from "../entries/entry-ports.js";
import { toIdQuery } from "../model/id-query.js";
import { requirePrincipal, type Principal } from "../model/principal.js";
import { outlinePageLimits, rangeLimits, toLineStarts } from "./navigation.js";
import { inlineOutlineWork } from "./outline-work.js";
import { toOutlineStep } from "./outline-moves.js";
import type {
  NavigateResult,
  ReadRangeRequest,
  ReadRangeResult,
  SearchService,
  SearchServiceDependencies,
} from "./search-model.js";
import { boundedCount } from "./search-validation.js";

type NavigateRequest = Parameters<SearchService["navigate"]>[1];

/**
 * The one entry an id names among those the caller may see, with text and
 * node summaries; ENTRY_NOT_FOUND exactly as for a by-id fetch otherwise.
 * A quarantined or rejected entry the caller may see is withheld as a
 * fetch withholds it: PERMISSION_DENIED naming its state, unless
 * `includeQuarantined`.
 */
async function readEntry(
  entries: EntryRepository,
  caller: Principal,
  input: string,
  includeQuarantined: boolean,
): Promise<StoredEntry> {
  const id = await resolveOne(entries, caller, toIdQuery(input, "id"));
  const [entry] = await entries.getByIds(caller, [id], false, includeQuarantined);
  if (entry !== undefined) return entry;
  const [withheld] = includeQuarantined ? [] : await entries.withheldStates(caller, [id]);
  if (withheld !== undefined) {
    throw new ContextHubError(
      "PERMISSION_DENIED",
      `entry ${withheld.id} is withheld: its trust state is ${withheld.state}`,
      {
        remedy:
          "pass include_quarantined to read it anyway, and treat its content with suspicion; a reviewer can approve it",
        details: { id: withheld.id, trust_state: withheld.state },
      },
    );
  }
  // Deleted between resolution and read: for the caller it does not exist.
  throw entryNotFound(input);
}

/** The entry's listing: what a search result shows, without the full text or outline. */
function toListing(entry: StoredEntry): StoredEntry {
  return {
    ...entry,
    text: "",
    nodeSummaries: [],
    images: entry.images.map((image) => ({ ...image, data: undefined })),
  };
}

/** The heading outline of one visible entry. */
export async function navigateEntry(
  dependencies: SearchServiceDependencies,
  principal: Principal | undefined,
  request: NavigateRequest,
): Promise<NavigateResult> {
  const { entries } = dependencies;
  const outlines = dependencies.outlines ?? inlineOutlineWork;
  const caller = requirePrincipal(principal, "context:read");
  // Checked before the entry is read: a bad combination is refused alike for every entry, visible or not.
  const step = toOutlineStep(request);
  const entry = await readEntry(entries, caller, request.id, request.includeQuarantined ?? false);
  const maxNodes = boundedCount(
    request.maxNodes ?? 0,
    outlinePageLimits.defaultNodes,
    outlinePageLimits.maxNodes,
    "max_nodes",
  );
  const page = { offset: request.offset ?? 0, maxNodes, maxBytes: outlinePageLimits.maxBytes };
  const outline = await outlines.outline(entry.text, entry.nodeSummaries, request.maxDepth, page, step);
  return {
    entry: toListing(entry),
    nodes: outline.nodes,
    lineCount: outline.lineCount,
    totalNodes: outline.totalNodes,
    nextOffset: outline.nextOffset,
    note: outline.note,
  };
}

/** A bounded range of one visible entry's text. */
export async function readEntryRange(
  dependencies: SearchServiceDependencies,
  principal: Principal | undefined,
  request: ReadRangeRequest,
): Promise<ReadRangeResult> {
  const { entries } = dependencies;
  const outlines = dependencies.outlines ?? inlineOutlineWork;
  const caller = requirePrincipal(principal, "context:read");
  if (request.range === undefined)
    throw invalidArgument("give the range to read: chars (start, end), lines (start, end) or node_id");
  const maxChars = boundedCount(request.maxChars, rangeLimits.defaultMaxChars, rangeLimits.maxChars, "max_chars");
  const entry = await readEntry(entries, caller, request.id, request.includeQuarantined ?? false);
  const range = await outlines.range(entry.text, request.range, maxChars);
  const lineCount = entry.text.length === 0 ? 0 : toLineStarts(entry.text).length;
  return {
    entryId: entry.id,
    text: entry.text.slice(range.span.start, range.span.end),
    span: range.span,
    startLine: range.startLine,
    endLine: range.endLine,
    truncated: range.truncated,
    textLength: entry.text.length,
    lineCount,
    heading: range.heading,
    trustState: entry.trust?.state,
  };
}
