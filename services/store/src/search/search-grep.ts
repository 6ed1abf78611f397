/**
 * Grep over the visible, filtered entries: candidates paged newest first by
 * size, their texts read within the call's budgets, the pattern run in worker
 * threads under a time budget per entry and per call.
 */
import { invalidArgument } from "@context-hub/common";
import { requirePrincipal, type Principal } from "../model/principal.js";
import { validateSearchFilter, type SearchFilter } from "../model/search-filter.js";
import { compilePattern, grepLimits, type CompiledPattern } from "./grep.js";
import type { GrepRunOutcome, GrepTextOutcome } from "./grep-runner.js";
import type { GrepCandidate, GrepCursor } from "./search-ports.js";
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
  const caller = requirePrincipal(principal, "context:read");
  const plan = planGrep(caller, request);
  const budget = { deadline: performance.now() + searchLimits.grep.totalMs, signal };
  const scan: GrepScan = {
    results: [],
    warnings: [],
    cursor: undefined,
    scanned: 0,
    scannedChars: 0,
    totalMatches: 0,
    reported: 0,
    truncated: false,
    timedOut: false,
  };
  let more = true;
  while (more) more = (await scanPage(dependencies, request, plan, scan, budget)) === "more";
  return grepResult(scan);
}

/** A grep call's request, validated: the pattern compiled, the filter, the bounds on matches and entries. */
interface GrepPlan {
  caller: Principal;
  pattern: CompiledPattern;
  filter: SearchFilter;
  maxMatches: number;
  maxPerEntry: number;
  maxEntries: number;
  /** The pattern the database may prefilter by (a case-sensitive literal), else undefined. */
  literal: string | undefined;
}

/** What a grep call has scanned and found so far, and why it stopped. */
interface GrepScan {
  results: GrepEntryResult[];
  warnings: string[];
  cursor: GrepCursor | undefined;
  scanned: number;
  scannedChars: number;
  totalMatches: number;
  reported: number;
  truncated: boolean;
  timedOut: boolean;
}

/** When the whole call stops, and what stops it early. */
interface GrepCallBudget {
  deadline: number;
  signal: AbortSignal | undefined;
}

/** Validates a grep request (INVALID_ARGUMENT on a bad pattern, filter or bound) into the call's plan. */
function planGrep(caller: Principal, request: GrepRequest): GrepPlan {
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
  return { caller, pattern, filter, maxMatches, maxPerEntry, maxEntries, literal };
}

/** Scans one page of candidates into `scan`: "more" when the next page should be scanned, "done" when the call stops. */
async function scanPage(
  dependencies: SearchServiceDependencies,
  request: GrepRequest,
  plan: GrepPlan,
  scan: GrepScan,
  budget: GrepCallBudget,
): Promise<"more" | "done"> {
  const { repository, grep } = dependencies;
  const limits = searchLimits.grep;
  const room = plan.maxEntries - scan.scanned;
  const page = await repository.grepCandidates(
    plan.caller,
    plan.filter,
    plan.literal,
    scan.cursor,
    Math.min(limits.pageEntries, room) + 1,
  );
  const batch = page.slice(0, Math.min(limits.pageEntries, room));
  if (batch.length === 0) return "done";
  const affordable = affordableCandidates(batch, scan);
  const texts = await repository.grepTexts(
    plan.caller,
    plan.filter,
    affordable.map((candidate) => candidate.id),
  );
  const run = await grep.run(
    plan.pattern,
    // An entry deleted since its size was read has no text left to match.
    affordable.map((candidate) => texts.get(candidate.id) ?? ""),
    { mode: request.mode, contextLines: request.contextLines, maxMatches: plan.maxPerEntry },
    { perTextMs: limits.perEntryMs, deadline: budget.deadline, signal: budget.signal },
  );
  if (recordOutcomes(request, plan, scan, affordable, run.outcomes) === "full") return "done";
  return afterPage(plan, scan, run, page.length, batch, affordable.length);
}

/**
 * The head of `batch` whose texts fit the call's and the page's character
 * budgets, counted into `scan`: sizes come first, texts after, so a page
 * reads only as much text as its budgets allow.
 */
function affordableCandidates(batch: GrepCandidate[], scan: GrepScan): GrepCandidate[] {
  const limits = searchLimits.grep;
  const affordable: GrepCandidate[] = [];
  let pageChars = 0;
  for (const candidate of batch) {
    if (scan.scannedChars + candidate.textLength > limits.maxScanChars && affordable.length + scan.scanned > 0) break;
    if (pageChars + candidate.textLength > limits.pageChars && affordable.length > 0) break;
    scan.scannedChars += candidate.textLength;
    pageChars += candidate.textLength;
    affordable.push(candidate);
  }
  return affordable;
}

/** Records a page's outcomes, in order, up to the first skipped one: "full" once the call's matches are all reported. */
function recordOutcomes(
  request: GrepRequest,
  plan: GrepPlan,
  scan: GrepScan,
  affordable: GrepCandidate[],
  outcomes: GrepTextOutcome[],
): "full" | "room" {
  for (const [index, outcome] of outcomes.entries()) {
    const candidate = affordable[index];
    if (candidate === undefined || outcome.status === "skipped") break;
    scan.scanned++;
    scan.cursor = { createdAt: candidate.createdAt, id: candidate.id };
    if (outcome.status === "timed_out") {
      scan.results.push({
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
    scan.totalMatches += outcome.result.matchCount;
    const shown = request.mode === "content" ? outcome.result.matches.slice(0, plan.maxMatches - scan.reported) : [];
    scan.reported += request.mode === "content" ? shown.length : 1;
    scan.results.push({
      entryId: candidate.id,
      threadId: candidate.threadId,
      matchCount: outcome.result.matchCount,
      matches: shown,
      timedOut: false,
      trustState: candidate.trustState,
    });
    if (scan.reported >= plan.maxMatches) {
      scan.truncated = true;
      return "full";
    }
  }
  return "room";
}

/** Whether the call goes on to the next page once a page is scanned, noting in `scan` why it stops. */
function afterPage(
  plan: GrepPlan,
  scan: GrepScan,
  run: GrepRunOutcome,
  pageLength: number,
  batch: GrepCandidate[],
  affordableCount: number,
): "more" | "done" {
  if (run.timedOut) {
    scan.timedOut = true;
    return "done";
  }
  if (
    affordableCount < batch.length &&
    scan.scannedChars + batch[affordableCount]!.textLength > searchLimits.grep.maxScanChars
  ) {
    scan.truncated = true;
    scan.warnings.push(`stopped after reading ${scan.scannedChars} characters of text; narrow the search with filters`);
    return "done";
  }
  // A page cut short by its own budget continues with the next page, from the cursor.
  if (affordableCount < batch.length) return "more";
  if (pageLength > batch.length) {
    if (scan.scanned >= plan.maxEntries) {
      scan.truncated = true;
      return "done";
    }
    return "more";
  }
  return "done";
}

/** The call's result, with warnings for a call or entries that ran out of time. */
function grepResult(scan: GrepScan): GrepResult {
  const limits = searchLimits.grep;
  const { results, warnings, scanned, totalMatches, truncated, timedOut } = scan;
  if (timedOut)
    warnings.push(
      `the pattern ran out of time (${limits.perEntryMs} ms per entry, ${limits.totalMs} ms in all); results cover the entries scanned so far`,
    );
  if (results.some((result) => result.timedOut))
    warnings.push("the pattern took too long on some entries (marked timed_out); simplify it or use a literal");
  return { entries: results, entriesScanned: scanned, totalMatches, truncated, timedOut, warnings };
}
