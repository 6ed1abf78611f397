import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { headingCharLimit, summaryCharLimit } from "@context-hub/common";
import { repeatTo } from "@context-hub/common/testing";
import type { BackendHub, HubBackend } from "../support/hub-backends.js";
import { callOk, fetchEntry } from "../support/mcp.js";

/**
 * Texts without a single sentence break, the kind logs, data dumps and
 * minified files are, are stored whole with the built-in providers, at the
 * sizes that used to fail and up to the 1,000,000-character limit: their
 * summary, and every node summary and its heading, fit the store's limits
 * (cut at a word, with "…").
 */

const sizes = [20_000, 200_000, 1_000_000] as const;

const kinds: { name: string; make(length: number): string }[] = [
  {
    name: "one long line of minified JSON",
    make: (length) =>
      repeatTo('{"id":4711,"tags":["alpha","beta"],"nested":{"ok":true,"values":[1,2,3]},"name":"sensor-17"},', length),
  },
  {
    name: "one long line of data without spaces",
    make: (length) => repeatTo("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3ODk=+/", length),
  },
  {
    name: "a log without periods",
    make: (length) =>
      repeatTo(
        "2026-01-31T12:00:00Z;level=INFO;service=ingest;request=handled;id=4f2a9c;status=200;duration_ms=12;bytes=5120;route=/v1/items\n",
        length,
      ),
  },
  {
    name: "prose without punctuation",
    make: (length) => repeatTo("the pump ran all night and the valve stayed open while the tank filled ", length),
  },
];

function assertFits(summary: string, what: string, limit: number): void {
  assert.ok(summary.length > 0, `${what} is not empty`);
  assert.ok(summary.length <= limit, `${what} is ${summary.length} characters; the limit is ${limit}`);
}

/** Stores every long text on `backend` through the gateway, as `store_context` callers do. */
export function defineLongTextSuite(backend: HubBackend): void {
  describe(`texts without sentence breaks are stored, with summaries that fit, on ${backend.name}`, () => {
    let hub: BackendHub;
    before(async () => {
      hub = await backend.start({});
    });
    after(async () => {
      await hub?.close();
    });

    for (const kind of kinds) {
      for (const size of sizes) {
        test(`${kind.name}, ${size.toLocaleString("en")} characters`, async () => {
          const text = kind.make(size);
          const ack = await callOk<{ context_id: string }>(hub.client, "store_context", {
            thread_id: "long-texts",
            source: "agent",
            text,
          });
          const entry = await fetchEntry(hub.client, ack.context_id);
          assert.equal(entry.text, text, "the text is stored exactly");
          assertFits(entry.summary, "the summary", summaryCharLimit);
          assert.ok(entry.chunk_count >= 1);
          if (entry.summary.length === summaryCharLimit)
            assert.ok(entry.summary.endsWith("…"), "a summary cut to the limit ends in an ellipsis");
        });
      }
    }

    test("a megabyte of one repeated character is stored with one chunk, as all its chunks embed alike", async () => {
      const text = ".".repeat(1_000_000);
      const ack = await callOk<{ context_id: string }>(hub.client, "store_context", {
        thread_id: "long-texts",
        source: "agent",
        text,
      });
      const entry = await fetchEntry(hub.client, ack.context_id);
      assert.equal(entry.text.length, text.length);
      assert.equal(entry.chunk_count, 1, "770 chunks of one vector are stored as the first of them");
    });

    test("a heading longer than the heading limit over an unbroken section keeps its node summary, both cut to fit", async () => {
      const heading = repeatTo("Sensor-17 calibration window opened-closed-reopened ", 3_000).trim();
      const text = `# ${heading}\n\n${repeatTo('{"reading":12.5,"unit":"kPa","sensor":"s17"},', 200_000)}`;
      const ack = await callOk<{ context_id: string }>(hub.client, "store_context", {
        thread_id: "long-texts",
        source: "agent",
        text,
      });
      const entry = await fetchEntry(hub.client, ack.context_id);
      assertFits(entry.summary, "the summary", summaryCharLimit);
      assert.equal(entry.node_summaries.length, 1);
      const [node] = entry.node_summaries;
      assertFits(node!.heading, "the node's heading", headingCharLimit);
      assert.ok(
        node!.heading.endsWith("…") && heading.startsWith(node!.heading.slice(0, -1)),
        "the heading is cut at its end, with an ellipsis",
      );
      assertFits(node!.summary, "the node summary", summaryCharLimit);
    });
  });
}
