import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { callOk, callTool, textOf } from "../support/mcp.js";
import { hubBackends, startKeyedHub } from "../support/keyed-hub.js";
import { readWrite, writeKeysFile } from "../support/principals.js";

/**
 * Two agents hand work on through the hub, over the real MCP surface, on
 * PGlite and on a PostgreSQL server: agent A (alice) logs a session, saves
 * memories (one pinned), uploads a file in two parts, shares the namespace
 * with B and hands off to B (bob), linking the file; B begins with
 * start_here, sees the handoff, the pinned memory and A's session, accepts,
 * reads A's log in order, reads the file by byte range over MCP and from the
 * download route, and completes the handoff. A third principal in the tenant
 * (carol), and an "alice" of another tenant, see none of it.
 */

interface Handoff {
  id: string;
  creator: string;
  status: string;
  holder: string | null;
  outcome: string;
  version: number;
}
interface Start {
  handoffs: { items: Handoff[]; count: number };
  pinned_memories: { items: { key: string; owner: string; text: string }[]; count: number };
  last_session: {
    session: { id: string; owner: string; summary: string; last_seq: number } | null;
    events: { seq: number; kind: string; text: string }[];
  };
  entries: { items: { id: string; owner: string }[]; count: number };
}
interface EventPage {
  events: { seq: number; kind: string; text: string; written_by: string }[];
  has_more: boolean;
  next_after_seq: number | null;
}

const namespace = "apollo";

/** A call's text and structured content with its namespace and fence nonces blanked. */
const shape = (result: CallToolResult, name: string) =>
  JSON.stringify({ text: textOf(result), structured: result.structuredContent })
    .split(name)
    .join("<ns>")
    .replace(/nonce=[0-9a-f]{16}/g, "nonce=<nonce>");

for (const backend of hubBackends) {
  describe(`two agents hand work on (${backend.name})`, () => {
    let closeHub: (() => Promise<void>) | undefined;
    let hubUrl: string;
    let keys: ReturnType<typeof writeKeysFile>;
    const clients: Record<string, Client> = {};

    before(async () => {
      keys = writeKeysFile([
        { name: "alice", tenant: "acme", subject: "alice", groups: ["eng"], scopes: readWrite },
        { name: "bob", tenant: "acme", subject: "bob", groups: ["eng"], scopes: readWrite },
        { name: "carol", tenant: "acme", subject: "carol", groups: ["ops"], scopes: readWrite },
        { name: "globexAlice", tenant: "globex", subject: "alice", groups: ["eng"], scopes: readWrite },
      ]);
      const started = await startKeyedHub(backend, keys, clients);
      closeHub = started.close;
      hubUrl = started.hub.url;
    });

    after(async () => {
      await closeHub?.();
      keys?.dispose();
    });

    test("A logs, saves and hands off; B starts with one call, accepts, reads the log in order and completes; nobody else sees it", async () => {
      const [a, b, carol] = [clients.alice!, clients.bob!, clients.carol!];

      // Agent A works and logs what it does.
      const { session } = await callOk<{ session: { id: string } }>(a, "start_session", {
        surface: "cli",
        agent: "planner",
        namespace,
      });
      const steps = [
        { kind: "note", payload: "read the launch checklist", idempotency_key: "a-1" },
        { kind: "tool_call", payload: { tool: "checklist", result: "7 of 9 done" }, idempotency_key: "a-2" },
        { kind: "decision", payload: "hold the fuelling step until the valve report", idempotency_key: "a-3" },
      ];
      await callOk(a, "append_session_events", { session_id: session.id, events: steps.slice(0, 2) });
      await callOk(a, "append_session_events", { session_id: session.id, events: steps.slice(1) });
      await callOk(a, "put_memory", {
        namespace,
        key: "plan",
        value: "Finish the checklist; fuel only after the valve report.",
        kind: "plan",
        tags: ["pinned"],
      });
      await callOk(a, "put_memory", { namespace, key: "scratch", value: "valve vendor phone: ask ops" });
      const report = await callOk<{ context_id: string }>(a, "store_context", {
        thread_id: namespace,
        source: "agent",
        text: "Apollo valve report is due Friday; the checklist stops at step 8 until then.",
        visibility: "shared",
      });
      // A passes the checklist on as a file, in two resumable parts, and links it from the handoff.
      const checklist = Buffer.from(
        Array.from({ length: 9 }, (_, step) => `step ${step + 1}: ${step < 7 ? "done" : "waiting"}\n`).join(""),
      );
      const sha256 = createHash("sha256").update(checklist).digest("hex");
      const upload = await callOk<{ upload: { upload_id: string } }>(a, "begin_artifact_upload", {
        sha256,
        size: checklist.length,
        media_type: "text/plain",
        filename: "checklist.txt",
        namespace,
      });
      for (const [offset, end] of [
        [0, 40],
        [40, checklist.length],
      ])
        await callOk(a, "append_artifact_upload", {
          upload_id: upload.upload.upload_id,
          offset,
          data: checklist.subarray(offset, end).toString("base64"),
        });
      const file = await callOk<{ download_path: string }>(a, "commit_artifact_upload", {
        upload_id: upload.upload.upload_id,
      });
      await callOk(a, "share_context", { thread_id: namespace, subjects: ["bob"], permission: "read" });
      const created = await callOk<{ handoff: Handoff }>(a, "create_handoff", {
        to_subject: "bob",
        title: "Finish the Apollo checklist",
        summary: "Steps 1-7 are done; step 8 waits for the valve report.",
        next_steps: ["read the valve report", "finish steps 8 and 9"],
        links: [
          { type: "memory", ref: `${namespace}/plan` },
          { type: "entry", ref: report.context_id },
          { type: "artifact", ref: sha256 },
        ],
        priority: "high",
      });
      const ended = await callOk<{ session: { last_seq: number } }>(a, "end_session", {
        session_id: session.id,
        summary: "Checklist at step 7; fuelling held for the valve report.",
      });
      assert.equal(ended.session.last_seq, 3, "a retried event was logged once");

      // Agent B begins with one call.
      const start = await callOk<Start>(b, "start_here", { namespace });
      assert.deepEqual(
        start.handoffs.items.map((handoff) => [handoff.id, handoff.creator, handoff.status]),
        [[created.handoff.id, "alice", "open"]],
      );
      assert.deepEqual(
        start.pinned_memories.items.map((memory) => [memory.key, memory.owner, memory.text]),
        [["plan", "alice", "Finish the checklist; fuel only after the valve report."]],
        "the pinned memory, not the scratch one",
      );
      assert.deepEqual(
        [start.last_session.session?.id, start.last_session.session?.owner, start.last_session.session?.summary],
        [session.id, "alice", "Checklist at step 7; fuelling held for the valve report."],
      );
      assert.deepEqual(
        start.last_session.events.map((event) => event.seq),
        [1, 2, 3],
      );
      assert.ok(
        start.entries.items.some((entry) => entry.id === report.context_id),
        "A's shared entry in the thread",
      );

      // B takes the work, reads the log in order, and finishes it.
      const accepted = await callOk<{ handoff: Handoff }>(b, "accept_handoff", { handoff_id: created.handoff.id });
      assert.deepEqual([accepted.handoff.status, accepted.handoff.holder], ["accepted", "bob"]);
      const log = await callOk<EventPage>(b, "read_session_events", { session_id: session.id });
      assert.deepEqual(
        log.events.map((event) => [event.seq, event.kind, JSON.parse(event.text), event.written_by]),
        steps.map((step, index) => [index + 1, step.kind, step.payload, "alice"]),
      );
      assert.equal(log.has_more, false);
      // B reads the linked checklist: steps 8 and 9 by byte range over MCP, and its first line from the download route.
      const tail = checklist.indexOf("step 8");
      const range = await callOk<{ data: string; has_more: boolean }>(b, "get_artifact", {
        sha256,
        owner: "alice",
        namespace,
        offset: tail,
        length: checklist.length - tail,
      });
      assert.equal(Buffer.from(range.data, "base64").toString(), "step 8: waiting\nstep 9: waiting\n");
      assert.equal(range.has_more, false);
      const download = (key: string, headers: Record<string, string> = {}) =>
        fetch(new URL(file.download_path, hubUrl), { headers: { authorization: `Bearer ${key}`, ...headers } });
      const first = await download(keys.principals.bob!.key, { range: "bytes=0-5" });
      assert.equal(first.status, 206);
      assert.equal(await first.text(), "step 1");
      const completed = await callOk<{ handoff: Handoff }>(b, "complete_handoff", {
        handoff_id: created.handoff.id,
        outcome: "Steps 8 and 9 done after the valve report.",
      });
      assert.equal(completed.handoff.status, "completed");
      const seenByA = await callOk<{ handoff: Handoff }>(a, "get_handoff", { handoff_id: created.handoff.id });
      assert.deepEqual(
        [seenByA.handoff.status, seenByA.handoff.holder, seenByA.handoff.outcome],
        ["completed", "bob", "Steps 8 and 9 done after the valve report."],
      );
      const later = await callOk<Start>(b, "start_here", { namespace });
      assert.equal(later.handoffs.count, 0, "a completed handoff is no longer waiting");

      // A third principal, and an "alice" of another tenant, see none of it.
      for (const [name, client] of [
        ["carol", carol],
        ["globexAlice", clients.globexAlice!],
      ] as const) {
        const theirs = await callTool(client, "start_here", { namespace });
        const empty = await callTool(client, "start_here", { namespace: "hermes" });
        assert.equal(shape(theirs, namespace), shape(empty, "hermes"), `${name}: apollo reads as an empty namespace`);
        const view = theirs.structuredContent as unknown as Start;
        assert.deepEqual(
          [view.handoffs.count, view.pinned_memories.count, view.last_session.session, view.entries.count],
          [0, 0, null, 0],
        );
        const principal = name === "carol" ? keys.principals.carol! : keys.principals.globexAlice!;
        assert.equal((await download(principal.key)).status, 404, `${name}: the file cannot be downloaded`);
        for (const [tool, args] of [
          ["get_artifact", { sha256, owner: "alice", namespace }],
          ["get_handoff", { handoff_id: created.handoff.id }],
          ["read_session_events", { session_id: session.id }],
          ["get_memory", { namespace, key: "plan", owner: "alice" }],
        ] as const)
          assert.equal((await callTool(client, tool, args)).isError, true, `${name} ${tool} is refused`);
        const entries = await callOk<{ entries: unknown[]; missing: string[] }>(client, "get_context_by_ids", {
          context_ids: [report.context_id],
        });
        assert.deepEqual(
          [entries.entries, entries.missing],
          [[], [report.context_id]],
          `${name}: the entry is missing`,
        );
      }
    });
  });
}
