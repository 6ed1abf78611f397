/**
 * Grep over the visible, filtered entries: candidates paged newest first by
 * size, their texts read within the call's budgets, the pattern run in worker
 * threads under a time budget per entry and per call.
 */
import { invalidArgument } from "@context-hub/common";
import { requirePrincipal, type Principal } from "../model/principal.js";
import { validateSearchFilter } from "../model/search-filter.js";
import { compilePattern, grepLimits } from "./grep.js";
import type { GrepCursor } from "./search-ports.js";
import {
  searchLimits,
  type GrepEntryResult,
  type GrepRequest,
  type GrepResult,
  type SearchServiceDependencies,
} from "./search-model.js";
import { boundedCount } from "./search-validation.js";

/** A pattern over the texts of visible, filtered entries, newest first, under a time budget. */
export async function grepEntries(
  dependencies: SearchServiceDependencies,
  principal: Principal | undefined,
  request: GrepRequest,
  signal?: AbortSignal,
): Promise<GrepResult> {
  const { repository, grep } = dependencies;
  const caller = requirePrincipal(principal, "context:read");
  const limits = searchLimits.grep;
  const pattern = compilePattern(request.pattern, {
    regex: request.regex,
    caseInsensitive: request.caseInsensitive,
  });
  const filter = validateSearchFilter(request.filter);
  if (request.contextLines > grepLimits.contextLines)
    throw invalidArgument(`context_lines must be 0 to ${grepLimits.contextLines} (got ${request.contextLines})`);
  const maxMatches = boundedCount(request.maxMatches, limits.defaultMaxMatches, limits.maxMatches, "max_matches");
  const maxPerEntry = boundedCount(
    request.maxMatchesPerEntry,
    limits.defaultMaxMatchesPerEntry,
    limits.maxMatchesPerEntry,
    "max_matches_per_entry",
  );
  const maxEntries = boundedCount(request.maxEntries, limits.defaultMaxEntries, limits.maxEntries, "max_entries");
  // A case-sensitive literal lets the database skip entries that cannot match; anything else is decided by the pattern itself.
  const literal = !request.regex && !request.caseInsensitive ? request.pattern : undefined;

  const deadline = performance.now() + limits.totalMs;
  const results: GrepEntryResult[] = [];
  const warnings: string[] = [];
  let cursor: GrepCursor | undefined;
  let scanned = 0;
  let scannedChars = 0;
  let totalMatches = 0;
  let reported = 0;
  let truncated = false;
  let timedOut = false;
  scan: for (;;) {
    const room = maxEntries - scanned;
    const page = await repository.grepCandidates(
      caller,
      filter,
      literal,
      cursor,
      Math.min(limits.pageEntries, room) + 1,
    );
    const batch = page.slice(0, Math.min(limits.pageEntries, room));
    if (batch.length === 0) break;
    // Sizes come first, texts after: a page reads only as much text as its budgets allow.
    const affordable: typeof batch = [];
    let pageChars = 0;
    for (const candidate of batch) {
      if (scannedChars + candidate.textLength > limits.maxScanChars && affordable.length + scanned > 0) break;
      if (pageChars + candidate.textLength > limits.pageChars && affordable.length > 0) break;
      scannedChars += candidate.textLength;
      pageChars += candidate.textLength;
      affordable.push(candidate);
    }
    const texts = await repository.grepTexts(
      caller,
      filter,
      affordable.map((candidate) => candidate.id),
    );
    const run = await grep.run(
      pattern,
      // An entry deleted since its size was read has no text left to match.
      affordable.map((candidate) => texts.get(candidate.id) ?? ""),
      { mode: request.mode, contextLines: request.contextLines, maxMatches: maxPerEntry },
      { perTextMs: limits.perEntryMs, deadline, signal },
    );
    for (const [index, outcome] of run.outcomes.entries()) {
      const candidate = affordable[index];
      if (candidate === undefined || outcome.status === "skipped") break;
      scanned++;
      cursor = { createdAt: candidate.createdAt, id: candidate.id };
      if (outcome.status === "timed_out") {
        results.push({
          entryId: candidate.id,
          threadId: candidate.threadId,
          matchCount: 0,
          matches: [],
          timedOut: true,
          trustState: candidate.trustState,
        });
        continue;
      }
      if (outcome.result.matchCount === 0) continue;
      totalMatches += outcome.result.matchCount;
      const shown = request.mode === "content" ? outcome.result.matches.slice(0, maxMatches - reported) : [];
      reported += request.mode === "content" ? shown.length : 1;
      results.push({
        entryId: candidate.id,
        threadId: candidate.threadId,
        matchCount: outcome.result.matchCount,
        matches: shown,
        timedOut: false,
        trustState: candidate.trustState,
      });
      if (reported >= maxMatches) {
        truncated = true;
        break scan;
      }
    }
    if (run.timedOut) {
      timedOut = true;
      break;
    }
    if (affordable.length < batch.length && scannedChars + batch[affordable.length]!.textLength > limits.maxScanChars) {
      truncated = true;
      warnings.push(`stopped after reading ${scannedChars} characters of text; narrow the search with filters`);
      break;
    }
    // A page cut short by its own budget continues with the next page, from the cursor.
    if (affordable.length < batch.length) continue;
    if (page.length > batch.length) {
      if (scanned >= maxEntries) {
        truncated = true;
        break;
      }
      continue;
    }
    break;
  }
  if (timedOut)
    warnings.push(
      `the pattern ran out of time (${limits.perEntryMs} ms per entry, ${limits.totalMs} ms in all); results cover the entries scanned so far`,
    );
  if (results.some((result) => result.timedOut))
    warnings.push("the pattern took too long on some entries (marked timed_out); simplify it or use a literal");
  return { entries: results, entriesScanned: scanned, totalMatches, truncated, timedOut, warnings };
}
