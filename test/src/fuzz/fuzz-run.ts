import fc from "fast-check";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  fuzzTenant,
  type FuzzCaller,
  judgeRawResponse,
  nestingDepth,
  judgeToolOutcome,
  maxBodyBytes,
  otherTenant,
  type FuzzTarget,
  type Verdict,
} from "./fuzz-target.js";
import { rawRequests, type RawRequest } from "./raw-bodies.js";
import { hostileArguments } from "./schema-arbitrary.js";

/** One generated case: a tool call through the SDK client, or a raw POST to /mcp. */
type FuzzCase = (
  | { kind: "tool"; tool: string; args: unknown; mutation: string }
  | { kind: "raw"; request: RawRequest }
) & { caller: number };

export interface Finding {
  target: string;
  category: string;
  count: number;
  examples: { input: string; detail: string }[];
}

export interface FuzzSummary {
  seed: number;
  cases: number;
  seconds: number;
  byTarget: Record<string, { ok: number; rejected: number; defect: number }>;
  findings: Finding[];
  /** Slowest case, in ms, and what it was. */
  slowest: { ms: number; target: string };
  serverAlive: boolean;
}

export interface FuzzOptions {
  cases: number;
  seed: number;
  /** Share of raw JSON-RPC bodies among the cases (0–1). */
  rawShare?: number;
  /** A call slower than this is a finding (regex bombs, runaway queries). */
  slowMs?: number;
  log?: (line: string) => void;
  /** How much of each example input a finding keeps (default 800 characters). */
  exampleChars?: number;
}

/** Cuts an input down to something a report can show. */
function describeInput(value: unknown, limit: number): string {
  const text = JSON.stringify(value, (_key, inner: unknown) =>
    typeof inner === "string" && inner.length > limit / 4 ? `${inner.slice(0, 60)}…(${inner.length} chars)` : inner,
  );
  if (text === undefined) return String(value);
  return text.length > limit ? `${text.slice(0, limit)}…(${text.length} chars)` : text;
}

function safeParse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

async function postRaw(
  target: FuzzTarget,
  caller: FuzzCaller,
  request: RawRequest,
): Promise<{ status: number; headers: Headers; body: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${caller.key}` };
  if (request.contentType !== "") headers["content-type"] = request.contentType;
  if (request.accept !== "") headers.accept = request.accept;
  const response = await fetch(target.url, {
    method: "POST",
    headers,
    body: request.body,
    signal: AbortSignal.timeout(60_000),
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

/**
 * Runs `cases` generated cases against the target, one at a time, and checks
 * every property after each: the server still answers, no 5xx without a
 * request id, every rejection a specific error, nothing changed by a
 * rejected call, another tenant's data never changed, no foreign private
 * entry in any answer, fences intact. Defects are collected, not thrown, so
 * one run reports all of them.
 */
export async function runFuzz(target: FuzzTarget, options: FuzzOptions): Promise<FuzzSummary> {
  const rawShare = options.rawShare ?? 0.25;
  const slowMs = options.slowMs ?? 15_000;
  const toolCases = fc.oneof(
    ...target.tools.map((tool) =>
      hostileArguments(tool.inputSchema, target.known).map(({ args, mutation }) => ({
        kind: "tool" as const,
        tool: tool.name,
        args,
        mutation,
      })),
    ),
  );
  const rawCases = rawRequests(
    target.tools.map((tool) => tool.name),
    maxBodyBytes,
  ).map((request) => ({ kind: "raw" as const, request }));
  const weight = Math.round(rawShare * 100);
  const cases = fc
    .tuple(
      fc.oneof({ arbitrary: toolCases, weight: 100 - weight }, { arbitrary: rawCases, weight }),
      fc.nat({ max: target.callers.length - 1 }),
    )
    .map(([generated, caller]): FuzzCase => ({ ...generated, caller }));

  const findings = new Map<string, Finding>();
  const byTarget: FuzzSummary["byTarget"] = {};
  let slowest = { ms: 0, target: "" };
  let fuzzPrint = await target.fingerprint(fuzzTenant);
  const otherPrint = await target.fingerprint(otherTenant);
  let done = 0;
  let serverAlive = true;
  const began = performance.now();

  const record = (name: string, input: unknown, verdict: Verdict) => {
    const tally = (byTarget[name] ??= { ok: 0, rejected: 0, defect: 0 });
    tally[verdict.outcome] += 1;
    if (verdict.outcome !== "defect") return;
    const key = `${name}\u0000${verdict.category}`;
    const finding = findings.get(key) ?? { target: name, category: verdict.category, count: 0, examples: [] };
    finding.count += 1;
    if (finding.examples.length < 3)
      finding.examples.push({
        input: describeInput(input, options.exampleChars ?? 800),
        detail: verdict.detail.slice(0, 1500),
      });
    findings.set(key, finding);
  };

  const property = fc.asyncProperty(cases, async (fuzzCase) => {
    if (!serverAlive) return;
    const caller = target.callers[fuzzCase.caller]!;
    const name = fuzzCase.kind === "tool" ? fuzzCase.tool : `POST /mcp (${fuzzCase.request.label})`;
    const input =
      fuzzCase.kind === "tool"
        ? { as: caller.name, args: fuzzCase.args }
        : { as: caller.name, body: fuzzCase.request.body };
    const started = performance.now();
    let verdict: Verdict;
    if (fuzzCase.kind === "tool") {
      let result: CallToolResult | undefined;
      let thrown: unknown;
      try {
        result = (await caller.client.callTool(
          { name: fuzzCase.tool, arguments: fuzzCase.args as Record<string, unknown> },
          undefined,
          { timeout: 60_000 },
        )) as CallToolResult;
      } catch (error) {
        thrown = error;
      }
      verdict = judgeToolOutcome(result, thrown, caller.foreignMarkers);
    } else {
      try {
        const answer = await postRaw(target, caller, fuzzCase.request);
        verdict = judgeRawResponse(answer.status, answer.headers, answer.body, caller.foreignMarkers);
      } catch (error) {
        verdict = {
          outcome: "defect",
          category: "transport failure",
          detail: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        };
      }
    }
    // Internal errors on deeply nested input are one known kind, told apart from the rest by the input's depth.
    if (
      verdict.outcome === "defect" &&
      /^internal error|^unclear error/.test(verdict.category) &&
      nestingDepth(fuzzCase.kind === "tool" ? fuzzCase.args : safeParse(fuzzCase.request.body)) > 32
    ) {
      verdict = { ...verdict, category: `${verdict.category} on input nested deeper than 32 levels` };
    }
    const elapsed = performance.now() - started;
    if (elapsed > slowest.ms) slowest = { ms: Math.round(elapsed), target: name };
    record(name, input, verdict);
    if (elapsed > slowMs)
      record(name, input, {
        outcome: "defect",
        category: `slower than ${slowMs} ms`,
        detail: `${Math.round(elapsed)} ms`,
      });

    const after = await target.fingerprint(fuzzTenant);
    if (verdict.outcome === "rejected" && after !== fuzzPrint)
      record(name, input, { outcome: "defect", category: "data changed by a rejected call", detail: verdict.detail });
    fuzzPrint = after;
    if ((await target.fingerprint(otherTenant)) !== otherPrint)
      record(name, input, { outcome: "defect", category: "another tenant's data changed", detail: verdict.outcome });
    if (verdict.outcome === "defect" && verdict.category === "transport failure" && !(await target.alive())) {
      serverAlive = false;
      record(name, input, { outcome: "defect", category: "server stopped answering", detail: verdict.detail });
    }
    done += 1;
    if (options.log !== undefined && done % 500 === 0)
      options.log(
        `${done} cases, ${((performance.now() - began) / 1000).toFixed(0)} s, ${[...findings.values()].reduce((sum, finding) => sum + finding.count, 0)} defects`,
      );
  });
  await fc.assert(property, { seed: options.seed, numRuns: options.cases, endOnFailure: true });
  return {
    seed: options.seed,
    cases: done,
    seconds: Number(((performance.now() - began) / 1000).toFixed(1)),
    byTarget,
    findings: [...findings.values()].sort((a, b) => b.count - a.count),
    slowest,
    serverAlive: serverAlive && (await target.alive()),
  };
}

/** A plain-text summary of a run, for the console. */
export function formatSummary(summary: FuzzSummary): string {
  const lines = [
    `${summary.cases} cases in ${summary.seconds} s (seed ${summary.seed}); server alive at the end: ${summary.serverAlive}; slowest case ${summary.slowest.ms} ms (${summary.slowest.target})`,
  ];
  const rows = Object.entries(summary.byTarget).sort(([a], [b]) => a.localeCompare(b));
  for (const [name, tally] of rows)
    lines.push(
      `  ${name.padEnd(42)} ok ${String(tally.ok).padStart(5)}  rejected ${String(tally.rejected).padStart(5)}  defects ${tally.defect}`,
    );
  lines.push(summary.findings.length === 0 ? "No defects found." : `${summary.findings.length} kind(s) of defect:`);
  for (const finding of summary.findings) {
    lines.push(`- ${finding.target}: ${finding.category} (${finding.count}×)`);
    for (const example of finding.examples)
      lines.push(`    input:    ${example.input}`, `    observed: ${example.detail.replaceAll("\n", " ⏎ ")}`);
  }
  return lines.join("\n");
}
