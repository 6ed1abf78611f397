import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createGrepRunner } from "./grep-runner.js";
import { createSearchService } from "./search.js";
import { searchLimits, type GrepRequest } from "./search-model.js";
import type { GrepCandidate, GrepCursor, SearchRepository } from "./search-ports.js";

const runner = createGrepRunner({ maxWorkers: 1 });
after(() => runner.close());

const caller = { tenant: "acme", subject: "a1", groups: [], scopes: ["context:read"] };
const request: GrepRequest = {
  pattern: "needle",
  regex: false,
  caseInsensitive: false,
  filter: undefined,
  mode: "count",
  contextLines: 0,
  maxMatches: 0,
  maxMatchesPerEntry: 0,
  maxEntries: 0,
};

/**
 * A repository of `count` entries of `length` characters each, newest first,
 * that records how much text each read asked for.
 */
function entriesOf(count: number, length: number) {
  const candidates: GrepCandidate[] = Array.from({ length: count }, (_, index) => ({
    id: `00000000-0000-7000-8000-${String(index).padStart(12, "0")}`,
    threadId: "logs",
    createdAt: new Date(Date.UTC(2026, 0, 1) - index * 1000),
    textLength: length,
    trustState: "unverified",
  }));
  const reads: number[] = [];
  const repository = {
    async grepCandidates(
      _principal: unknown,
      _filter: unknown,
      _literal: unknown,
      cursor: GrepCursor | undefined,
      limit: number,
    ) {
      const start = cursor === undefined ? 0 : candidates.findIndex((candidate) => candidate.id === cursor.id) + 1;
      return candidates.slice(start, start + limit);
    },
    async grepTexts(_principal: unknown, _filter: unknown, ids: readonly string[]) {
      reads.push(ids.length * length);
      return new Map(ids.map((id) => [id, `${"x".repeat(length - 7)} needle`]));
    },
  } as unknown as SearchRepository;
  return { repository, reads };
}

test("grep reads text a bounded page at a time: sizes first, then only the texts that fit the page's character budget", async () => {
  const length = 1_000_000;
  const { repository, reads } = entriesOf(10, length);
  const search = createSearchService({
    repository,
    entries: {} as never,
    vectors: {} as never,
    grep: runner,
    languages: { configured: "english", allowed: ["english"] },
  });
  const result = await search.grep(caller, request);
  assert.equal(result.timedOut, false, result.warnings.join("; "));
  assert.equal(result.entriesScanned, 10, "every entry is still scanned");
  assert.equal(result.totalMatches, 10);
  assert.ok(
    reads.every((chars) => chars <= searchLimits.grep.pageChars),
    `every read holds at most ${searchLimits.grep.pageChars} characters: ${reads.join(", ")}`,
  );
  assert.deepEqual(reads, [4_000_000, 4_000_000, 2_000_000]);
});

test("one text longer than the page budget is still read, alone", async () => {
  const { repository, reads } = entriesOf(3, searchLimits.grep.pageChars + 1);
  const search = createSearchService({
    repository,
    entries: {} as never,
    vectors: {} as never,
    grep: runner,
    languages: { configured: "english", allowed: ["english"] },
  });
  const result = await search.grep(caller, request);
  assert.equal(result.entriesScanned, 3, result.warnings.join("; "));
  assert.deepEqual(reads, [
    searchLimits.grep.pageChars + 1,
    searchLimits.grep.pageChars + 1,
    searchLimits.grep.pageChars + 1,
  ]);
});
