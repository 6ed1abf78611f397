import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { callOk, callTool, failureLine, rpcError } from "../support/mcp.js";
import { hubBackends, startKeyedHub, type KeyedHub } from "../support/keyed-hub.js";
import { readWrite, writeKeysFile } from "../support/principals.js";

/**
 * Published URIs over HTTP, on PGlite and a PostgreSQL server: a caller
 * publishes an entry's text, one of its images or a file it links under a
 * URI of its own scheme, or a template over an entry's text, and
 * resources/list, resources/templates/list, resources/read and
 * completion/complete serve them, to their publisher alone. A publication
 * opens nothing: a URI another caller published, one never published, and
 * one whose entry the publisher can no longer read all answer as the same
 * resource-not-found.
 */

type Contents = { uri: string; mimeType?: string; text?: string; blob?: string; _meta?: Record<string, unknown> };
type Publication = { uri: string; template: boolean; id: string; serves: string; image: number | null };

const onePixelPng = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const notes = "On-call checklist: pager, runbook, handover.\n";
const sha = (data: string) => createHash("sha256").update(data).digest("hex");

/** The text inside a read's untrusted-data fence (resources.ts fences every stored text it serves). */
function unfenced(contents: Contents | undefined): string {
  const match = /^<<<UNTRUSTED_DATA [^\n]*>>>\n([\s\S]*)\n<<<END_UNTRUSTED_DATA [^\n]*>>>$/.exec(contents?.text ?? "");
  assert.ok(match !== null, `the text is fenced: ${JSON.stringify(contents?.text)}`);
  return match[1]!;
}

async function listedUris(client: Client): Promise<string[]> {
  const uris: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listResources(cursor === undefined ? {} : { cursor });
    uris.push(...page.resources.map((resource) => resource.uri));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return uris;
}

for (const backend of hubBackends) {
  describe(`published URIs as MCP resources (${backend.name})`, () => {
    const clients: Record<string, Client> = {};
    let running: KeyedHub;
    let keys: ReturnType<typeof writeKeysFile> | undefined;
    const ids: Record<string, string> = {};
    const store = async (caller: string, args: Record<string, unknown>) =>
      (
        await callOk<{ context_id: string }>(clients[caller]!, "store_context", {
          thread_id: "published",
          source: "user",
          kind: "document",
          ...args,
        })
      ).context_id;
    const publish = (caller: string, args: Record<string, unknown>) =>
      callOk<{ publication: Publication; replaced: boolean }>(clients[caller]!, "publish_resource", args);
    const read = async (caller: string, uri: string) =>
      (await clients[caller]!.readResource({ uri })).contents as Contents[];
    /** An error's code and message with the URI taken out, so two URIs' answers compare. */
    const answer = async (caller: string, uri: string) => {
      const error = await rpcError(clients[caller]!.readResource({ uri }));
      return JSON.stringify({ code: error.code, message: error.message, data: error.data }).split(uri).join("URI");
    };

    before(async () => {
      keys = writeKeysFile([
        { name: "alice", tenant: "acme", subject: "alice", groups: [], scopes: readWrite },
        { name: "bob", tenant: "acme", subject: "bob", groups: [], scopes: readWrite },
        { name: "globexAlice", tenant: "globex", subject: "alice", groups: [], scopes: readWrite },
      ]);
      running = await startKeyedHub(backend, keys, clients);
      await callOk(clients.alice!, "put_artifact", {
        data: Buffer.from(notes).toString("base64"),
        media_type: "text/plain",
        filename: "on-call.txt",
      });
      ids.handbook = await store("alice", { title: "Handbook", visibility: "tenant", text: "Handbook, page one." });
      ids.handbookV2 = await store("alice", { text: "Handbook, second edition." });
      ids.picture = await store("alice", {
        text: "The team photo.",
        images: [{ data: onePixelPng, mime_type: "image/png" }],
      });
      ids.linked = await store("alice", { text: "The on-call notes, attached.", artifacts: [sha(notes)] });
      ids.report = await store("alice", { text: "Weekly report for {{team}} in week {{week}}; {{other}} stays." });
      ids.bobPrivate = await store("bob", { text: "Bob's private plan." });
      ids.bobShared = await store("bob", { text: "Bob's note shared with alice." });
      await callOk(clients.bob!, "share_context", {
        context_ids: [ids.bobShared],
        subjects: ["alice"],
        permission: "read",
      });
    });
    after(async () => {
      await running?.close();
      keys?.dispose();
    });

    test("an entry's text, image and linked file are read under the URIs their reader published", async () => {
      const text = await publish("alice", {
        uri: "docs://handbook/current",
        id: ids.handbook,
        description: "The handbook",
      });
      assert.deepEqual(
        { ...text.publication, created_at: undefined, updated_at: undefined },
        {
          uri: "docs://handbook/current",
          template: false,
          id: ids.handbook,
          serves: "text",
          image: null,
          artifact: null,
          description: "The handbook",
          created_at: undefined,
          updated_at: undefined,
        },
      );
      assert.equal(text.replaced, false);
      const [page] = await read("alice", "docs://handbook/current");
      assert.equal(page!.uri, "docs://handbook/current");
      assert.equal(page!.mimeType, "text/markdown");
      assert.equal(unfenced(page), "Handbook, page one.");
      assert.equal(page!._meta?.entry_id, ids.handbook);
      assert.equal(page!._meta?.published_as, "docs://handbook/current");

      await publish("alice", { uri: "img:team-photo", id: ids.picture, image: 0 });
      assert.deepEqual(await read("alice", "img:team-photo"), [
        { uri: "img:team-photo", mimeType: "image/png", blob: onePixelPng },
      ]);
      await publish("alice", { uri: "file:///handbook/on-call.txt", id: ids.linked, artifact: sha(notes) });
      const [file] = await read("alice", "file:///handbook/on-call.txt");
      assert.deepEqual(
        { uri: file!.uri, mimeType: file!.mimeType, text: file!.text },
        {
          uri: "file:///handbook/on-call.txt",
          mimeType: "text/plain",
          text: notes,
        },
      );

      const listed = await listedUris(clients.alice!);
      for (const uri of ["docs://handbook/current", "img:team-photo", "file:///handbook/on-call.txt"])
        assert.ok(listed.includes(uri), `${uri} is listed`);
      assert.ok(listed.indexOf("docs://handbook/current") < listed.indexOf(`context-hub://entries/${ids.handbook}`));
    });

    test("publishing a URI again moves it; unpublishing takes it back and leaves the entry", async () => {
      await publish("alice", { uri: "docs://handbook/moving", id: ids.handbook });
      const moved = await publish("alice", { uri: "docs://handbook/moving", id: ids.handbookV2 });
      assert.equal(moved.replaced, true);
      assert.equal(unfenced((await read("alice", "docs://handbook/moving"))[0]), "Handbook, second edition.");
      const never = await answer("alice", "docs://never/published");
      const gone = await callOk<{ success: boolean; publication: Publication }>(clients.alice!, "unpublish_resource", {
        uri: "docs://handbook/moving",
      });
      assert.equal(gone.publication.id, ids.handbookV2);
      assert.equal(await answer("alice", "docs://handbook/moving"), never);
      assert.match(
        failureLine(await callTool(clients.alice!, "unpublish_resource", { uri: "docs://handbook/moving" })),
        /^ENTRY_NOT_FOUND: .*docs:\/\/handbook\/moving/,
      );
      assert.equal(
        (await callOk<{ entries: unknown[] }>(clients.alice!, "get_context_by_ids", { context_ids: [ids.handbookV2] }))
          .entries.length,
        1,
        "the entry stays",
      );
    });

    test("a template serves its entry's text with the URI's values in the placeholders it names", async () => {
      await publish("alice", { uri: "report://{team}/weeks/{week}", id: ids.report, description: "Weekly reports" });
      const [filled] = await read("alice", "report://ops/weeks/49");
      assert.equal(filled!.uri, "report://ops/weeks/49");
      assert.equal(unfenced(filled), "Weekly report for ops in week 49; {{other}} stays.");
      assert.deepEqual(filled!._meta?.values, { team: "ops", week: "49" });
      assert.equal(
        unfenced((await read("alice", "report://site%20reliability/weeks/1"))[0]),
        "Weekly report for site reliability in week 1; {{other}} stays.",
      );
      const templates = (await clients.alice!.listResourceTemplates({})).resourceTemplates;
      const own = templates.find((template) => template.uriTemplate === "report://{team}/weeks/{week}");
      assert.equal(own?.description, "Weekly reports");
      assert.ok(templates.some((template) => template.uriTemplate === "context-hub://entries/{id}"));
      assert.ok(!(await listedUris(clients.alice!)).includes("report://{team}/weeks/{week}"), "templates not listed");
      // A value may not span segments, and every literal must be there.
      const never = await answer("alice", "docs://never/published");
      for (const uri of ["report://ops/weeks/", "report://ops/extra/weeks/49", "report://ops/week/49"])
        assert.equal(await answer("alice", uri), never, uri);
      // A more specific template wins over a general one.
      await publish("alice", { uri: "report://ops/weeks/{week}", id: ids.handbook });
      assert.equal(unfenced((await read("alice", "report://ops/weeks/50"))[0]), "Handbook, page one.");
      assert.equal(
        unfenced((await read("alice", "report://dev/weeks/50"))[0]),
        "Weekly report for dev in week 50; {{other}} stays.",
      );
      const complete = await clients.alice!.complete({
        ref: { type: "ref/resource", uri: "report://{team}/weeks/{week}" },
        argument: { name: "team", value: "o" },
      });
      assert.deepEqual(complete.completion.values, []);
      const unknownArgument = await rpcError(
        clients.alice!.complete({
          ref: { type: "ref/resource", uri: "report://{team}/weeks/{week}" },
          argument: { name: "month", value: "" },
        }),
      );
      assert.equal(unknownArgument.code, -32602);
      assert.match(unknownArgument.message, /has no argument "month"; it has team, week/);
    });

    test("publications are their publisher's own: nobody else resolves, lists or removes them", async () => {
      await publish("alice", { uri: "docs://shared/name", id: ids.handbook });
      const never = await answer("bob", "docs://never/published");
      // Bob may read the entry itself, but not through alice's URI; globex's alice is another principal.
      assert.equal(await answer("bob", "docs://shared/name"), never);
      assert.equal(await answer("bob", "docs://handbook/current"), never);
      assert.equal(await answer("bob", "report://ops/weeks/49"), never);
      assert.equal(await answer("globexAlice", "docs://shared/name"), never);
      assert.ok(!(await listedUris(clients.bob!)).includes("docs://shared/name"));
      const bobsTemplates = (await clients.bob!.listResourceTemplates({})).resourceTemplates;
      assert.ok(!bobsTemplates.some((template) => template.uriTemplate.startsWith("report://")));
      assert.match(
        failureLine(await callTool(clients.bob!, "unpublish_resource", { uri: "docs://shared/name" })),
        /^ENTRY_NOT_FOUND: /,
      );
      // The same URI is free for bob to publish to an entry of his own.
      await publish("bob", { uri: "docs://shared/name", id: ids.bobPrivate });
      assert.equal(unfenced((await read("bob", "docs://shared/name"))[0]), "Bob's private plan.");
      assert.equal(unfenced((await read("alice", "docs://shared/name"))[0]), "Handbook, page one.");
      const listed = await callOk<{ publications: Publication[] }>(clients.bob!, "list_published_resources", {});
      assert.deepEqual(
        listed.publications.map((publication) => publication.uri),
        ["docs://shared/name"],
      );
    });

    test("an entry the publisher cannot read cannot be published, and one that becomes hidden reads as never published", async () => {
      const ghost = "00000000-0000-4000-8000-000000000000";
      const refused = async (id: string) =>
        failureLine(await callTool(clients.alice!, "publish_resource", { uri: "docs://hidden", id })).replace(id, "ID");
      assert.match(await refused(ghost), /^ENTRY_NOT_FOUND: /);
      assert.equal(await refused(ids.bobPrivate!), await refused(ghost), "hidden = missing");

      await publish("alice", { uri: "docs://from-bob", id: ids.bobShared });
      assert.equal(unfenced((await read("alice", "docs://from-bob"))[0]), "Bob's note shared with alice.");
      await callOk(clients.bob!, "unshare_context", { context_ids: [ids.bobShared], subjects: ["alice"] });
      assert.equal(await answer("alice", "docs://from-bob"), await answer("alice", "docs://never/published"));
      const listed = await callOk<{ publications: Publication[] }>(clients.alice!, "list_published_resources", {});
      assert.ok(!listed.publications.some((publication) => publication.uri === "docs://from-bob"));
      assert.ok(!(await listedUris(clients.alice!)).includes("docs://from-bob"));
    });

    test("a URI the rules refuse is a clear error that publishes nothing", async () => {
      const cases: Array<[string, RegExp]> = [
        ["context-hub://entries/x", /scheme context-hub:/],
        ["no-scheme/path", /absolute URI/],
        ["docs://{a}{b}", /side by side/],
        ["docs://a b", /a space/],
        ["docs://{+path}", /does not open an expression/],
      ];
      for (const [uri, reason] of cases) {
        const result = await callTool(clients.alice!, "publish_resource", { uri, id: ids.handbook });
        assert.match(failureLine(result), reason, uri);
      }
      const both = await callTool(clients.alice!, "publish_resource", {
        uri: "img:both",
        id: ids.picture,
        image: 0,
        artifact: sha(notes),
      });
      assert.match(failureLine(both), /image or artifact, not both/);
      const templateOfImage = await callTool(clients.alice!, "publish_resource", {
        uri: "img:{n}",
        id: ids.picture,
        image: 0,
      });
      assert.match(failureLine(templateOfImage), /^INVALID_ARGUMENT: .*template/);
      const noImage = await callTool(clients.alice!, "publish_resource", {
        uri: "img:none",
        id: ids.handbook,
        image: 3,
      });
      assert.match(failureLine(noImage), /^INVALID_ARGUMENT: .*image/);
      const listed = await callOk<{ publications: Publication[] }>(clients.alice!, "list_published_resources", {});
      for (const uri of ["img:both", "img:{n}", "img:none"])
        assert.ok(!listed.publications.some((publication) => publication.uri === uri), uri);
    });
  });
}
