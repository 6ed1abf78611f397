// An agent session written for a peer memory server with the same tool names, replayed over real MCP with the SDK
// client: the peer's argument names (start_char/end_char, is_regex, case_sensitive, max_entries_scanned,
// include_node_summaries, include_images, explain_query, fusion_method, search_modes) and its metadata operators
// (dotted paths, exists without a value, the operator left out) each do what the peer documents; arguments that
// would mean something else here are refused saying what to use, and changing nothing. metadata_patch merges under
// compare-and-set.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { AllInOne } from "@context-hub/cli";
import { callOk, callTool, connectMcpClient, failureLine, textOf } from "../support/mcp.js";
import { startMemoryHub } from "../support/memory-hub.js";

interface Listing {
  results: { id: string; metadata: Record<string, unknown> }[];
  count: number;
}

const report = [
  "# Auth rollout",
  "",
  "The login service now issues short-lived tokens.",
  "",
  "## Risks",
  "",
  "Token refresh fails when the clock drifts; ERROR rates rose on Tuesday.",
  "",
  "## Next steps",
  "",
  "Pin the clock source and retry the refresh once.",
].join("\n");

describe("a peer-style agent session over MCP", () => {
  let hub: AllInOne;
  let client: Client;
  const ids: Record<string, string> = {};
  const thread = "project-alpha";

  before(async () => {
    // Every section gets a node summary, so include_node_summaries has something to leave out.
    hub = await startMemoryHub({ SUMMARIZER_SECTION_MIN_CHARS: "0" });
    client = await connectMcpClient(hub.url);
    const store = async (name: string, text: string, metadata: Record<string, unknown>, source = "agent") => {
      ids[name] = (
        await callOk<{ context_id: string }>(client, "store_context", {
          thread_id: thread,
          source,
          text,
          metadata,
          tags: ["auth"],
        })
      ).context_id;
    };
    await store("report", report, {
      status: "completed",
      agent_name: "executor-1",
      priority: 8,
      technologies: ["python", "fastapi"],
      references: { context_ids: [100, 200] },
      reviewer: null,
    });
    await store("plan", "Plan: rotate the signing keys after the auth rollout.", {
      status: "active",
      agent_name: "planner",
      priority: 3,
      technologies: ["go"],
      file: "plan.MD",
    });
    await store("prompt", "Please check why token refresh fails on the auth service.", { status: "active" }, "user");
  });

  after(async () => {
    await client?.close();
    await hub?.close();
  });

  const found = (page: Listing) =>
    Object.keys(ids)
      .filter((name) => page.results.some((hit) => hit.id === ids[name]))
      .sort();
  const list = async (args: Record<string, unknown>) =>
    found(await callOk<Listing>(client, "search_context", { thread_id: thread, ...args }));

  test("search_context with the peer's metadata filters, include_images and explain_query left false", async () => {
    assert.deepEqual(await list({ metadata: { status: "active" }, include_images: false, explain_query: false }), [
      "plan",
      "prompt",
    ]);
    const filters = (metadata_filters: unknown[]) => list({ metadata_filters });
    assert.deepEqual(await filters([{ key: "priority", operator: "gte", value: 5 }]), ["report"]);
    assert.deepEqual(await filters([{ key: "agent_name", operator: "exists" }]), ["plan", "report"]);
    assert.deepEqual(await filters([{ key: "agent_name", operator: "not_exists" }]), ["prompt"]);
    assert.deepEqual(await filters([{ key: "agent_name", operator: "starts_with", value: "executor" }]), ["report"]);
    assert.deepEqual(await filters([{ key: "file", operator: "ends_with", value: ".md", case_sensitive: false }]), [
      "plan",
    ]);
    assert.deepEqual(await filters([{ key: "file", operator: "ends_with", value: ".md" }]), []);
    assert.deepEqual(await filters([{ key: "technologies", operator: "array_contains", value: "python" }]), ["report"]);
    assert.deepEqual(
      await filters([{ key: "technologies", operator: "array_contains", value: "PYTHON", case_sensitive: false }]),
      ["report"],
    );
    assert.deepEqual(await filters([{ key: "references.context_ids", operator: "array_contains", value: 200 }]), [
      "report",
    ]);
    assert.deepEqual(await filters([{ key: "reviewer", operator: "is_null" }]), ["report"]);
    assert.deepEqual(await filters([{ key: "priority", operator: "is_not_null" }]), ["plan", "report"]);
    assert.deepEqual(
      await filters([{ key: "status", value: "completed" }]),
      ["report"],
      "the operator left out means eq",
    );
    assert.deepEqual(
      await filters([
        { key: "status", operator: "in", value: ["active", "pending"] },
        { key: "agent_name", operator: "exists" },
      ]),
      ["plan"],
    );
  });

  test("the ranked searches take the peer's include_images (false), explain_query, fusion_method and search_modes", async () => {
    const fts = await callOk<Listing & { explain?: unknown }>(client, "fts_search_context", {
      query: "token refresh",
      mode: "match",
      thread_id: thread,
      include_images: false,
      explain_query: true,
      metadata_filters: [{ key: "status", operator: "ne", value: "archived" }],
    });
    assert.deepEqual(found(fts), ["prompt", "report"]);
    assert.ok(fts.explain !== undefined, "explain_query explains the ranking");
    const hybrid = await callOk<Listing & { explain?: { fusion_method: string | null } }>(
      client,
      "hybrid_search_context",
      {
        query: "token refresh fails",
        thread_id: thread,
        fusion_method: "rrf",
        rrf_k: 60,
        search_modes: ["fts", "semantic"],
        include_images: false,
        explain_query: true,
        metadata_filters: [{ key: "agent_name", operator: "exists" }],
      },
    );
    assert.ok(
      found(hybrid).includes("report") && !found(hybrid).includes("prompt"),
      `hybrid found ${found(hybrid).join(", ")}`,
    );
    assert.equal(hybrid.explain?.fusion_method, "rrf");
    const semantic = await callOk<Listing>(client, "semantic_search_context", {
      query: "signing key rotation",
      thread_id: thread,
      include_images: false,
      limit: 5,
    });
    assert.ok(found(semantic).includes("plan"));
  });

  test("navigate_context, read_context_range and grep_context with the peer's argument names", async () => {
    const outline = await callOk<{ nodes: { node_id: string; start: number; end: number; summary: string }[] }>(
      client,
      "navigate_context",
      { context_id: ids.report },
    );
    assert.ok(outline.nodes.length >= 3);
    assert.ok(
      outline.nodes.some((node) => node.summary !== ""),
      "positive control: the outline carries summaries by default",
    );
    const bare = await callOk<{ nodes: { summary: string }[] }>(client, "navigate_context", {
      context_id: ids.report,
      include_node_summaries: false,
    });
    assert.equal(bare.nodes.length, outline.nodes.length);
    assert.ok(bare.nodes.every((node) => node.summary === ""));

    const risks = outline.nodes.find((node) => node.node_id.endsWith("risks"))!;
    const range = await callOk<{ text: string; start: number; end: number }>(client, "read_context_range", {
      context_id: ids.report,
      start_char: risks.start,
      end_char: risks.end,
    });
    assert.equal(range.text, report.slice(risks.start, risks.end));
    const same = await callOk<{ text: string }>(client, "read_context_range", {
      context_id: ids.report,
      start: risks.start,
      end_char: risks.end,
    });
    assert.equal(same.text, range.text, "our name and the peer's mix");

    type Grep = { results: { id: string; match_count: number }[]; entries_scanned: number };
    const grep = (args: Record<string, unknown>) =>
      callOk<Grep>(client, "grep_context", { thread_id: thread, output_mode: "count", ...args });
    const exact = await grep({ pattern: "ERROR", case_sensitive: true });
    assert.deepEqual(
      exact.results.map((entry) => entry.id),
      [ids.report],
    );
    const folded = await grep({ pattern: "error rates|token refresh", is_regex: true, case_sensitive: false });
    assert.deepEqual(folded.results.map((entry) => entry.id).sort(), [ids.report, ids.prompt].sort());
    const literal = await grep({ pattern: "error rates|token refresh", is_regex: false });
    assert.deepEqual(literal.results, [], "is_regex false reads the pattern literally");
    const capped = await grep({ pattern: "the", max_entries_scanned: 1 });
    assert.equal(capped.entries_scanned, 1);
  });

  test("update_context(metadata_patch) merges onto the current metadata, and concurrent patches lose nothing", async () => {
    const stored = await callOk<{ context_id: string }>(client, "store_context", {
      thread_id: "patches",
      source: "agent",
      text: "Patch target.",
      metadata: { status: "pending", priority: 5, assignee: "alice", config: { retries: 3, timeout: 30 } },
    });
    const id = stored.context_id;
    const metadataOf = async () =>
      (
        await callOk<{ entries: { metadata: Record<string, unknown>; version: number }[] }>(
          client,
          "get_context_by_ids",
          { context_ids: [id] },
        )
      ).entries[0]!;
    const first = await callOk<{ version: number }>(client, "update_context", {
      context_id: id,
      metadata_patch: { status: "completed", assignee: null, config: { timeout: 60 }, reviewer: "bob" },
    });
    assert.deepEqual((await metadataOf()).metadata, {
      status: "completed",
      priority: 5,
      config: { retries: 3, timeout: 60 },
      reviewer: "bob",
    });

    const stale = await callTool(client, "update_context", {
      context_id: id,
      metadata_patch: { status: "archived" },
      expected_version: first.version - 1,
    });
    assert.match(failureLine(stale), /VERSION_CONFLICT/);
    assert.equal((await metadataOf()).metadata.status, "completed", "a pinned stale version changes nothing");

    const keys = Array.from({ length: 6 }, (_, index) => `k${index}`);
    await Promise.all(
      keys.map((key) => callOk(client, "update_context", { context_id: id, metadata_patch: { [key]: true } })),
    );
    const after = await metadataOf();
    for (const key of keys) assert.equal(after.metadata[key], true, `${key} survived the concurrent patches`);
    assert.equal(after.version, first.version + keys.length);

    const both = await callTool(client, "update_context", { context_id: id, metadata: {}, metadata_patch: { a: 1 } });
    assert.match(textOf(both), /give metadata .* or metadata_patch .* not both/);
  });

  test("delete_context_batch by thread_ids, source and older_than_days, with a dry-run count", async () => {
    type Deleted = {
      deleted_count: number;
      deleted_ids: string[];
      matched_count?: number;
      matched_count_exact?: boolean;
      dry_run?: boolean;
      has_more?: boolean;
    };
    const made: Record<string, string[]> = {};
    for (const [thread, source, count] of [
      ["sweep-a", "agent", 3],
      ["sweep-a", "user", 2],
      ["sweep-b", "agent", 2],
      ["sweep-c", "agent", 2],
    ] as const) {
      const { results } = await callOk<{ results: { context_id: string }[] }>(client, "store_context_batch", {
        entries: Array.from({ length: count }, (_, index) => ({
          thread_id: thread,
          source,
          text: `Sweep note ${thread} ${source} ${index}.`,
        })),
      });
      made[`${thread}/${source}`] = results.map((result) => result.context_id);
    }
    const criteria = { thread_ids: ["sweep-a", "sweep-b"], source: "agent" };
    const dry = await callOk<Deleted>(client, "delete_context_batch", { ...criteria, dry_run: true });
    assert.deepEqual([dry.matched_count, dry.matched_count_exact, dry.dry_run, dry.deleted_count], [5, true, true, 0]);
    const none = await callOk<Deleted>(client, "delete_context_batch", {
      ...criteria,
      older_than_days: 1,
      dry_run: true,
    });
    assert.equal(none.matched_count, 0, "entries made today are not older than a day");

    const done = await callOk<Deleted>(client, "delete_context_batch", { ...criteria, reason: "sweep" });
    const expected = [...made["sweep-a/agent"]!, ...made["sweep-b/agent"]!].sort();
    assert.deepEqual([...done.deleted_ids].sort(), expected);
    assert.equal(done.has_more, false);
    const { missing, entries } = await callOk<{ missing: string[]; entries: { id: string }[] }>(
      client,
      "get_context_by_ids",
      {
        context_ids: [...expected, ...made["sweep-a/user"]!, ...made["sweep-c/agent"]!],
      },
    );
    assert.deepEqual([...missing].sort(), expected);
    assert.deepEqual(
      entries.map((entry) => entry.id).sort(),
      [...made["sweep-a/user"]!, ...made["sweep-c/agent"]!].sort(),
      "other sources and threads stay",
    );
    const again = await callOk<Deleted>(client, "delete_context_batch", { ...criteria, dry_run: true });
    assert.equal(again.matched_count, 0);

    const mixed = await callTool(client, "delete_context_batch", {
      context_ids: [made["sweep-c/agent"]![0]],
      source: "agent",
    });
    assert.match(textOf(mixed), /give either context_ids or criteria/);
  });

  test("where a peer argument would mean something else here, the call is refused saying what to use", async () => {
    const refusals: [string, Record<string, unknown>, RegExp][] = [
      ["search_context", { thread_id: thread, include_images: true }, /get_context_by_ids \(include_images: true\)/],
      ["search_context", { thread_id: thread, explain_query: true }, /ranked searches .* take explain_query/],
      [
        "hybrid_search_context",
        { query: "token", search_modes: ["fts"] },
        /for one leg use fts_search_context or semantic_search_context/,
      ],
      [
        "read_context_range",
        { context_id: ids.report, start: 0, start_char: 5, end: 10 },
        /start_char and start name the same setting and disagree/,
      ],
      ["grep_context", { pattern: "x", regex: true, is_regex: false }, /is_regex and regex name the same setting/],
      [
        "grep_context",
        { pattern: "x", case_insensitive: true, case_sensitive: true },
        /case_sensitive and case_insensitive name the same setting/,
      ],
      [
        "search_context",
        { metadata_filters: [{ key: "priority", operator: "gt", value: 1, case_sensitive: true }] },
        /case_sensitive applies only to .* not to gt/,
      ],
      [
        "search_context",
        { metadata_filters: [{ key: "reviewer", operator: "is_null", value: "x" }] },
        /leave value out for is_null/,
      ],
      ["search_context", { metadata_filters: [{ key: "status" }] }, /eq needs a value/],
    ];
    for (const [tool, args, message] of refusals) {
      const result = await callTool(client, tool, args);
      assert.equal(result.isError, true, `${tool} ${JSON.stringify(args)} should fail`);
      assert.match(textOf(result), message, `${tool} ${JSON.stringify(args)}: ${failureLine(result)}`);
    }
    assert.deepEqual(await list({}), ["plan", "prompt", "report"], "nothing changed");
  });
});
