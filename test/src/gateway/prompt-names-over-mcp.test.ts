import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { callOk, callTool, failureLine, rpcError } from "../support/mcp.js";
import { hubBackends, startKeyedHub, type KeyedHub } from "../support/keyed-hub.js";
import { readWrite, writeKeysFile } from "../support/principals.js";

/**
 * Prompts by name, with their images and linked files, over HTTP on PGlite
 * and a PostgreSQL server. A prompt's name is its owner's: the owner lists
 * and gets it by name, everyone else who may read it by entry id, so the
 * same name held by two owners (or by the same subject in two tenants)
 * never collides and a name says nothing of prompts the caller cannot read.
 * prompts/get renders the text, then each image as image content, then each
 * linked file as an embedded resource (text or blob), or a resource link
 * past the size bound; resources/read serves a linked file at its entry's
 * URI to exactly the entry's readers.
 */

interface Listed {
  name: string;
  title?: string;
}

type Content =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "resource"; resource: { uri: string; mimeType: string; text?: string; blob?: string } }
  | { type: "resource_link"; uri: string; name: string; mimeType: string; size: number };

const onePixelPng = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const notes = "Checklist: ships, cranes, tides.\n";
const binary = Buffer.from([0, 159, 146, 150, 255, 1, 2, 3]);
// Over the 1 MiB a rendered prompt embeds of one file.
const large = "x".repeat(1024 * 1024 + 10);

const sha = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

async function listNames(client: Client): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listPrompts(cursor === undefined ? {} : { cursor });
    names.push(...(page.prompts as Listed[]).map((prompt) => prompt.name));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return names.sort();
}

for (const backend of hubBackends) {
  describe(`prompts by name, with images and linked files (${backend.name})`, () => {
    const clients: Record<string, Client> = {};
    let running: KeyedHub;
    let keys: ReturnType<typeof writeKeysFile> | undefined;
    const ids: Record<string, string> = {};
    const store = async (caller: string, args: Record<string, unknown>) =>
      (
        await callOk<{ context_id: string }>(clients[caller]!, "store_context", {
          thread_id: "named-prompts",
          source: "user",
          kind: "prompt",
          ...args,
        })
      ).context_id;
    const put = (caller: string, data: string | Buffer, mediaType: string, filename: string) =>
      callOk<{ sha256: string }>(clients[caller]!, "put_artifact", {
        data: Buffer.from(data).toString("base64"),
        media_type: mediaType,
        filename,
      });

    let aliceKey: string;
    before(async () => {
      keys = writeKeysFile([
        { name: "alice", tenant: "acme", subject: "alice", groups: [], scopes: readWrite },
        { name: "bob", tenant: "acme", subject: "bob", groups: [], scopes: readWrite },
        { name: "globexAlice", tenant: "globex", subject: "alice", groups: [], scopes: readWrite },
      ]);
      running = await startKeyedHub(backend, keys, clients);
      aliceKey = keys.principals.alice!.key;
      await put("alice", notes, "text/plain", "notes.txt");
      await put("alice", binary, "application/octet-stream", "blob.bin");
      await put("alice", large, "text/plain", "large.txt");
      ids.alice = await store("alice", {
        prompt_name: "weekly_brief",
        title: "Weekly brief",
        visibility: "tenant",
        text: "Brief the team on {{topic}}.",
        prompt_arguments: [{ name: "topic", required: true }],
        images: [{ data: onePixelPng, mime_type: "image/png" }],
        artifacts: [sha(notes), sha(binary), sha(large)],
      });
      ids.aliceOnly = await store("alice", { prompt_name: "only.alice-1", visibility: "tenant", text: "Alice's." });
      ids.bob = await store("bob", { prompt_name: "weekly_brief", text: "Bob's own brief." });
      ids.globex = await store("globexAlice", { prompt_name: "weekly_brief", text: "Globex brief." });
    });
    after(async () => {
      await running?.close();
      keys?.dispose();
    });

    test("an owner lists its prompts by name, every other reader by entry id", async () => {
      assert.deepEqual(await listNames(clients.alice!), ["only.alice-1", "weekly_brief"]);
      assert.deepEqual(await listNames(clients.bob!), [ids.alice, ids.aliceOnly, "weekly_brief"].sort());
      assert.deepEqual(await listNames(clients.globexAlice!), ["weekly_brief"]);
    });

    test("prompts/get by name finds the caller's own prompt: the same name elsewhere is another prompt", async () => {
      const text = async (caller: string, name: string, args: Record<string, string> = {}) =>
        ((await clients[caller]!.getPrompt({ name, arguments: args })).messages[0]!.content as { text: string }).text;
      assert.equal(await text("alice", "weekly_brief", { topic: "tides" }), "Brief the team on tides.");
      assert.equal(await text("bob", "weekly_brief"), "Bob's own brief.");
      assert.equal(await text("globexAlice", "weekly_brief"), "Globex brief.");
      assert.equal(await text("bob", ids.alice!, { topic: "cranes" }), "Brief the team on cranes.");
      // Names are their owners' own: another owner's name, a hidden prompt's and one never given read alike.
      const answer = async (caller: string, name: string) => {
        const error = await rpcError(clients[caller]!.getPrompt({ name, arguments: {} }));
        return { code: error.code, message: error.message.replace(JSON.stringify(name), "NAME") };
      };
      const never = await answer("bob", "never_named");
      assert.equal(never.code, -32602);
      assert.match(never.message, /unknown prompt NAME/);
      assert.deepEqual(await answer("bob", "only.alice-1"), never);
      assert.deepEqual(await answer("alice", ids.bob!), never);
      assert.deepEqual(await answer("globexAlice", ids.alice!), never);
      assert.deepEqual(await answer("alice", "not a name"), never);
    });

    test("a rendered prompt carries its images, then its linked files: embedded, or linked past the bound", async () => {
      for (const caller of ["alice", "bob"]) {
        const name = caller === "alice" ? "weekly_brief" : ids.alice!;
        const rendered = await clients[caller]!.getPrompt({ name, arguments: { topic: "ships" } });
        const contents = rendered.messages.map((message) => {
          assert.equal(message.role, "user");
          return message.content as Content;
        });
        assert.equal(rendered.description, "Weekly brief");
        assert.deepEqual(contents[0], { type: "text", text: "Brief the team on ships." });
        assert.deepEqual(contents[1], { type: "image", data: onePixelPng, mimeType: "image/png" });
        const uri = (data: string | Buffer) => `context-hub://entries/${ids.alice}/artifacts/${sha(data)}`;
        const files = contents.slice(2).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
        assert.deepEqual(
          files,
          [
            { type: "resource", resource: { uri: uri(notes), mimeType: "text/plain", text: notes } },
            {
              type: "resource",
              resource: { uri: uri(binary), mimeType: "application/octet-stream", blob: binary.toString("base64") },
            },
            { type: "resource_link", uri: uri(large), name: "large.txt", mimeType: "text/plain", size: large.length },
          ].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
          caller,
        );
      }
    });

    test("a client of a revision before resource links gets a large file named in a text message instead", async () => {
      const contentsAt = async (protocolVersion: string | undefined) => {
        const response = await fetch(running.hub.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: `Bearer ${aliceKey}`,
            ...(protocolVersion === undefined ? {} : { "mcp-protocol-version": protocolVersion }),
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "prompts/get",
            params: { name: "weekly_brief", arguments: { topic: "tides" } },
          }),
        });
        const answer = (await response.json()) as { result: { messages: { content: Content }[] } };
        return answer.result.messages.map((message) => message.content);
      };
      const uri = `context-hub://entries/${ids.alice}/artifacts/${sha(large)}`;
      for (const version of ["2025-03-26", "2024-11-05", undefined]) {
        const contents = await contentsAt(version);
        assert.ok(!contents.some((content) => content.type === "resource_link"), String(version));
        assert.ok(
          contents.some(
            (content) =>
              content.type === "text" &&
              content.text ===
                `Linked file large.txt (text/plain, ${large.length} bytes), too large to embed here: read it with resources/read at ${uri}`,
          ),
          String(version),
        );
        assert.equal(
          contents.filter((content) => content.type === "resource").length,
          2,
          "the small files stay embedded",
        );
      }
      for (const version of ["2025-06-18", "2025-11-25"]) {
        const links = (await contentsAt(version)).filter((content) => content.type === "resource_link");
        assert.deepEqual(links, [
          { type: "resource_link", uri, name: "large.txt", mimeType: "text/plain", size: large.length },
        ]);
      }
    });

    test("resources/read serves a linked file to the entry's readers only; hidden reads as missing", async () => {
      const uri = `context-hub://entries/${ids.alice}/artifacts/${sha(notes)}`;
      for (const caller of ["alice", "bob"]) {
        const read = await clients[caller]!.readResource({ uri });
        assert.equal(read.contents.length, 1);
        assert.equal(read.contents[0]!.uri, uri);
        assert.equal(read.contents[0]!.mimeType, "text/plain");
        assert.equal((read.contents[0] as { text: string }).text, notes);
      }
      const blob = await clients.bob!.readResource({
        uri: `context-hub://entries/${ids.alice}/artifacts/${sha(binary)}`,
      });
      assert.equal((blob.contents[0] as { blob: string }).blob, binary.toString("base64"));
      const templates = await clients.bob!.listResourceTemplates({});
      assert.ok(
        templates.resourceTemplates.some(
          (template) => template.uriTemplate === "context-hub://entries/{id}/artifacts/{sha256}",
        ),
      );
      const answer = async (caller: string, target: string) => {
        const error = await rpcError(clients[caller]!.readResource({ uri: target }));
        return { code: error.code, message: error.message.replace(target, "URI") };
      };
      const missing = await answer(
        "bob",
        `context-hub://entries/00000000-0000-4000-8000-000000000000/artifacts/${sha(notes)}`,
      );
      assert.equal(missing.code, -32602);
      assert.match(missing.message, /resource not found: URI/);
      assert.deepEqual(await answer("globexAlice", uri), missing, "another tenant");
      assert.deepEqual(
        await answer("bob", `context-hub://entries/${ids.alice}/artifacts/${sha("never linked")}`),
        missing,
        "a file the entry does not link",
      );
      assert.deepEqual(
        await answer("alice", `context-hub://entries/${ids.bob}/artifacts/${sha(notes)}`),
        missing,
        "another owner's private entry",
      );
      // resources/read serves a file whole up to 8 MiB, so the one a rendered prompt only links reads in full here.
      const whole = await clients.alice!.readResource({
        uri: `context-hub://entries/${ids.alice}/artifacts/${sha(large)}`,
      });
      assert.equal((whole.contents[0] as { text: string }).text.length, large.length);
    });

    test("completion/complete suggests entry ids, versions and linked files the caller may read, and checks prompts", async () => {
      const complete = (
        caller: string,
        ref: Record<string, string>,
        name: string,
        value: string,
        context?: Record<string, string>,
      ) =>
        clients[caller]!.complete({
          ref: ref as { type: "ref/prompt"; name: string },
          argument: { name, value },
          ...(context === undefined ? {} : { context: { arguments: context } }),
        });
      assert.deepEqual(clients.alice!.getServerCapabilities()?.completions, {});
      const prompt = { type: "ref/prompt", name: "weekly_brief" };
      assert.deepEqual((await complete("alice", prompt, "topic", "ti")).completion.values, []);
      assert.deepEqual(
        (await complete("bob", { type: "ref/prompt", name: ids.alice! }, "topic", "")).completion.values,
        [],
      );
      const promptError = async (caller: string, name: string, argument = "topic") => {
        const error = await rpcError(complete(caller, { type: "ref/prompt", name }, argument, ""));
        return { code: error.code, message: error.message.replace(JSON.stringify(name), "NAME") };
      };
      const never = await promptError("bob", "never_named");
      assert.equal(never.code, -32602);
      assert.match(never.message, /unknown prompt NAME/);
      assert.deepEqual(await promptError("bob", "only.alice-1"), never, "another owner's name");
      assert.deepEqual(await promptError("alice", ids.bob!), never, "a hidden prompt");
      assert.match(
        (await promptError("alice", "weekly_brief", "mood")).message,
        /declares no argument "mood"; it declares topic/,
      );

      const entryTemplate = { type: "ref/resource", uri: "context-hub://entries/{id}" };
      const ids4 = async (caller: string, prefix: string) =>
        (await complete(caller, entryTemplate, "id", prefix)).completion.values;
      assert.ok((await ids4("alice", ids.alice!.slice(0, 4))).includes(ids.alice!));
      assert.ok(
        (await ids4("alice", "")).every((id) => id !== ids.bob && id !== ids.globex),
        "only what alice may read",
      );
      assert.ok(!(await ids4("alice", ids.bob!.slice(0, 8))).includes(ids.bob!));
      assert.deepEqual(await ids4("alice", "not hex"), []);

      const files = { type: "ref/resource", uri: "context-hub://entries/{id}/artifacts/{sha256}" };
      const linked = [sha(notes), sha(binary), sha(large)].sort();
      for (const caller of ["alice", "bob"])
        assert.deepEqual(
          [...(await complete(caller, files, "sha256", "", { id: ids.alice! })).completion.values].sort(),
          linked,
        );
      assert.deepEqual(
        (await complete("alice", files, "sha256", sha(notes).slice(0, 10), { id: ids.alice! })).completion.values,
        [sha(notes)],
      );
      assert.deepEqual((await complete("alice", files, "id", ids.alice!.slice(0, 6))).completion.values, [ids.alice]);
      const hidden = await complete("globexAlice", files, "sha256", "", { id: ids.alice! });
      const missing = await complete("globexAlice", files, "sha256", "", {
        id: "00000000-0000-4000-8000-000000000000",
      });
      assert.deepEqual(hidden, missing, "another tenant's entry completes as one that never existed");
      assert.deepEqual(hidden.completion.values, []);

      const versions = { type: "ref/resource", uri: "context-hub://entries/{id}/versions/{version}" };
      assert.deepEqual((await complete("alice", versions, "version", "", { id: ids.alice! })).completion.values, ["1"]);
      const images = { type: "ref/resource", uri: "context-hub://entries/{id}/images/{ordinal}" };
      assert.deepEqual((await complete("bob", images, "ordinal", "", { id: ids.alice! })).completion.values, ["0"]);
      const unknown = await rpcError(
        complete("alice", { type: "ref/resource", uri: "test://template/{id}/data" }, "id", ""),
      );
      assert.equal(unknown.code, -32602);
      assert.match(unknown.message, /no resource template/);
    });

    test("a name is unique among its owner's prompts, only on a prompt, and never of an entry id's form", async () => {
      const taken = await callTool(clients.alice!, "store_context", {
        thread_id: "named-prompts",
        source: "user",
        kind: "prompt",
        prompt_name: "weekly_brief",
        text: "A second weekly brief.",
      });
      assert.match(failureLine(taken), /prompt_name "weekly_brief" is already the name of your prompt/);
      assert.ok(failureLine(taken).includes(ids.alice!), "the owner is told which of its prompts holds the name");
      const onNote = await callTool(clients.alice!, "store_context", {
        thread_id: "named-prompts",
        source: "user",
        prompt_name: "a_note",
        text: "Not a prompt.",
      });
      assert.match(failureLine(onNote), /^INVALID_ARGUMENT: .*prompt_name/);
      for (const name of [
        "a0000000-0000-4000-8000-000000000000",
        "deadbeef",
        "has space",
        "9starts_with_digit",
        "x".repeat(65),
      ]) {
        const refused = await callTool(clients.alice!, "store_context", {
          thread_id: "named-prompts",
          source: "user",
          kind: "prompt",
          prompt_name: name,
          text: "Refused name.",
        });
        // The form is the input schema's to refuse, an entry id's form (hex digits and hyphens only) the store's.
        assert.match(failureLine(refused), /(^INVALID_ARGUMENT: |Input validation error: ).*prompt[ _]name/, name);
      }
      const listing = await callOk<{ results: { text_length: number }[] }>(clients.alice!, "search_context", {
        thread_id: "named-prompts",
        kind: "prompt",
      });
      assert.equal(listing.results.length, 2, "nothing refused was stored");
    });

    test("a rename, a removal, a delete and a restore move the name, and history keeps it", async () => {
      const id = await store("alice", { prompt_name: "draft_plan", text: "Plan the week." });
      await callOk(clients.alice!, "update_context", { context_id: id, prompt_name: "final_plan" });
      assert.equal(
        ((await clients.alice!.getPrompt({ name: "final_plan" })).messages[0]!.content as { text: string }).text,
        "Plan the week.",
      );
      assert.equal((await rpcError(clients.alice!.getPrompt({ name: "draft_plan" }))).code, -32602);
      const freed = await store("alice", { prompt_name: "draft_plan", text: "A new draft." });
      const history = await callOk<{ versions: { version: number; prompt_name: string | null }[] }>(
        clients.alice!,
        "get_context_history",
        { context_id: id },
      );
      assert.deepEqual(history.versions.map((version) => [version.version, version.prompt_name]).sort(), [
        [1, "draft_plan"],
        [2, "final_plan"],
      ]);
      // Restoring version 1 would take back a name another of the owner's prompts now holds.
      const clash = await callTool(clients.alice!, "restore_context_version", { context_id: id, version: 1 });
      assert.match(failureLine(clash), /prompt_name "draft_plan" is already the name of your prompt/);
      assert.equal(
        ((await clients.alice!.getPrompt({ name: "final_plan" })).messages[0]!.content as { text: string }).text,
        "Plan the week.",
        "the refused restore changed nothing",
      );
      await callOk(clients.alice!, "delete_context", { context_ids: [freed] });
      await callOk(clients.alice!, "restore_context_version", { context_id: id, version: 1 });
      assert.equal(
        ((await clients.alice!.getPrompt({ name: "draft_plan" })).messages[0]!.content as { text: string }).text,
        "Plan the week.",
      );
      await callOk(clients.alice!, "update_context", { context_id: id, prompt_name: "" });
      assert.equal((await rpcError(clients.alice!.getPrompt({ name: "draft_plan" }))).code, -32602);
      assert.ok((await listNames(clients.alice!)).includes(id), "an unnamed prompt is listed by its id");
    });
  });
}
