/** Published resource URIs over the store's PublicationsService: targets, templates, pages, limits, and that a publication never opens anything. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { isContextHubError, parseResourceUri } from "@context-hub/common";
import { commonV1, storeV1 } from "@context-hub/proto";
import {
  caught,
  commitText,
  expectError,
  expectIndistinguishable,
  principal,
  principalTrio,
  randomId,
  type CaughtError,
  type PrincipalInit,
  type StoreClient,
  type StoreSuiteContext,
} from "./store-fixtures.js";
import { putFile, randomFile } from "./store-artifacts-fixtures.js";

const png = (last: number) => new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, last]);
const subject = (name: string) => ({ kind: storeV1.GranteeKind.SUBJECT, name });

/** What a failure shows a caller: two failures with the same shape cannot be told apart. */
function shapeOf(error: CaughtError) {
  return { code: error.code, message: error.message, remedy: error.remedy, details: JSON.stringify(error.details) };
}

async function resolveFailure(client: StoreClient, caller: PrincipalInit, uri: string) {
  return shapeOf(await caught(client.resolvePublication({ principal: caller, uri })));
}

async function publish(
  client: StoreClient,
  caller: PrincipalInit,
  uri: string,
  entryId: string,
  target: { imageOrdinal?: number; artifactSha256?: string; description?: string } = {},
) {
  const reply = await client.publishResource({ principal: caller, uri, entryId, ...target });
  assert.ok(reply.publication !== undefined);
  return reply;
}

async function listAll(client: StoreClient, caller: PrincipalInit, templatesOnly = false): Promise<string[]> {
  const uris: string[] = [];
  let cursor = "";
  do {
    const page = await client.listPublications({ principal: caller, templatesOnly, limit: 100, cursor });
    uris.push(...page.publications.map((publication) => publication.uri));
    cursor = page.nextCursor;
  } while (cursor !== "");
  return uris;
}

/** The audit records of a tenant's publications, oldest first. */
async function publicationAudit(context: StoreSuiteContext, tenant: string) {
  const { rows } = await context.db.query<{ action: string; target_ids: string[]; details: Record<string, unknown> }>(
    "SELECT action, target_ids, details FROM audit_log WHERE tenant = $1 AND action LIKE 'resource.%' ORDER BY seq",
    [tenant],
  );
  return rows;
}

export function definePublicationTests(context: StoreSuiteContext): void {
  describe("publications", () => {
    test("an entry's text, one of its images and a file it links are published and resolve to what they serve", async () => {
      const { client } = context;
      const { a1 } = principalTrio("publications-targets");
      const file = randomFile(500);
      await putFile(client, a1, file.data, { filename: "plan.pdf" });
      const entry = await commitText(client, a1, "docs", "The on-call handbook.", {
        images: [
          { mimeType: "image/png", data: png(1) },
          { mimeType: "image/png", data: png(2) },
        ],
        artifacts: [file.sha256],
      });

      const text = await publish(client, a1, "docs://handbook/on-call", entry.id, { description: " The handbook " });
      assert.deepEqual(
        [text.replaced, text.publication!.template, text.publication!.entryId, text.publication!.description],
        [false, false, entry.id, "The handbook"],
      );
      assert.equal(text.publication!.imageOrdinal, undefined);
      const image = await publish(client, a1, "img://handbook/diagram", entry.id.toUpperCase(), { imageOrdinal: 1 });
      assert.deepEqual([image.publication!.entryId, image.publication!.imageOrdinal], [entry.id, 1]);
      const linked = await publish(client, a1, "file://handbook/plan.pdf", entry.id, {
        artifactSha256: file.sha256.toUpperCase(),
      });
      assert.equal(linked.publication!.artifactSha256, file.sha256);

      for (const [uri, imageOrdinal, artifactSha256] of [
        ["docs://handbook/on-call", undefined, ""],
        ["img://handbook/diagram", 1, ""],
        ["file://handbook/plan.pdf", undefined, file.sha256],
      ] as const) {
        const resolved = await client.resolvePublication({ principal: a1, uri });
        assert.deepEqual(
          [resolved.publication!.uri, resolved.publication!.entryId, resolved.publication!.imageOrdinal],
          [uri, entry.id, imageOrdinal],
        );
        assert.equal(resolved.publication!.artifactSha256, artifactSha256);
        assert.deepEqual(resolved.variables, {}, "an exact URI takes no values");
      }
      assert.deepEqual(await listAll(client, a1), [
        "docs://handbook/on-call",
        "file://handbook/plan.pdf",
        "img://handbook/diagram",
      ]);

      const refused: [string, () => Promise<unknown>, RegExp][] = [
        [
          "an image past the last",
          () => publish(client, a1, "img://x", entry.id, { imageOrdinal: 2 }),
          /has 2 images; image_ordinal 2 is none of them/,
        ],
        [
          "a file the entry does not link",
          () => publish(client, a1, "file://x", entry.id, { artifactSha256: randomFile(10).sha256 }),
          /links no file [0-9a-f]{64} that you can read/,
        ],
        [
          "an image no entry can hold",
          () => publish(client, a1, "img://x", entry.id, { imageOrdinal: 4_294_967_295 }),
          /image_ordinal must be an image's position, 0 to 9 \(got 4294967295\)/,
        ],
        [
          "an image and a file",
          () => publish(client, a1, "x://y", entry.id, { imageOrdinal: 0, artifactSha256: file.sha256 }),
          /not both/,
        ],
        [
          "a template over an image",
          () => publish(client, a1, "img://{name}", entry.id, { imageOrdinal: 0 }),
          /a template serves the entry's text only/,
        ],
        [
          "a template over a file",
          () => publish(client, a1, "file://{name}", entry.id, { artifactSha256: file.sha256 }),
          /a template serves the entry's text only/,
        ],
        ["a prefix", () => publish(client, a1, "x://y", entry.id.slice(0, 13)), /is a prefix/],
        ["not an id", () => publish(client, a1, "x://y", "nope"), /is not an entry id/],
        [
          "a long description",
          () => publish(client, a1, "x://y", entry.id, { description: "d".repeat(501) }),
          /description is 501 characters; the limit is 500/,
        ],
        [
          "a NUL in the description",
          () => publish(client, a1, "x://y", entry.id, { description: "a\u0000b" }),
          /must not contain NUL/,
        ],
        [
          "a malformed digest",
          () => publish(client, a1, "x://y", entry.id, { artifactSha256: "abc" }),
          /artifact_sha256 must be a SHA-256/,
        ],
      ];
      for (const [label, call, message] of refused) {
        await expectError(call(), "INVALID_ARGUMENT", message).catch((error: Error) => {
          throw new Error(`${label}: ${error.message}`);
        });
      }
      assert.equal((await listAll(client, a1)).length, 3, "nothing refused was published");
    });

    test("every URI the parser refuses reaches the caller as INVALID_ARGUMENT with the parser's own message", async () => {
      const { client } = context;
      const { a1 } = principalTrio("publications-bad-uris");
      const entry = await commitText(client, a1, "docs", "A target.");
      const bad = [
        "",
        "no scheme here",
        "1docs://x",
        "context-hub://entries/x",
        "CONTEXT-HUB://entries/x",
        "docs:",
        "docs://a b",
        "docs://a\u0000b",
        'docs://a"b',
        "docs://é",
        "docs://{x}{y}",
        "docs://{x}/{x}",
        "docs://{1x}",
        "docs://{x",
        "docs://x}",
        "docs://{a-b}",
        `docs://${Array.from({ length: 9 }, (_, index) => `{v${index}}`).join("/")}`,
        `docs://${"a".repeat(506)}`,
      ];
      for (const uri of bad) {
        let expected: Error | undefined;
        try {
          parseResourceUri(uri);
        } catch (error) {
          expected = error as Error;
        }
        assert.ok(expected !== undefined && isContextHubError(expected), `the parser refuses ${JSON.stringify(uri)}`);
        const error = await expectError(publish(client, a1, uri, entry.id), "INVALID_ARGUMENT");
        assert.equal(error.message, expected.message, JSON.stringify(uri));
      }
      assert.deepEqual(await listAll(client, a1), []);
      await publish(client, a1, `docs://${"a".repeat(505)}`, entry.id);
      assert.equal((await listAll(client, a1)).length, 1, "positive control: 512 characters is allowed");
    });

    test("templates take percent-decoded values, the most specific wins, an exact URI beats them, a publish again moves a URI", async () => {
      const { client } = context;
      const { a1, tenantA } = principalTrio("publications-templates");
      const [general, ops, slashX, xSlash, pager, pagerMoved] = await Promise.all(
        ["general notes", "ops notes", "x after the slash", "x at the end", "the pager", "the new pager"].map((text) =>
          commitText(client, a1, "notes", `{{team}} / {{topic}}: ${text}`),
        ),
      );
      await publish(client, a1, "notes://{team}/{topic}", general!.id);
      await publish(client, a1, "notes://ops/{topic}", ops!.id);
      await publish(client, a1, "notes://{team}/{topic}x", xSlash!.id);
      await publish(client, a1, "notes://{team}/x{topic}", slashX!.id);
      await publish(client, a1, "notes://ops/pager", pager!.id);

      const resolve = (uri: string) => client.resolvePublication({ principal: a1, uri });
      const eng = await resolve("notes://eng/deploy%2Fprod%20now");
      assert.deepEqual(
        [eng.publication!.uri, eng.publication!.template, eng.publication!.entryId, eng.variables],
        ["notes://{team}/{topic}", true, general!.id, { team: "eng", topic: "deploy/prod now" }],
        "values are percent-decoded; an encoded / is a value's own",
      );
      const onCall = await resolve("notes://ops/on%20call");
      assert.deepEqual(
        [onCall.publication!.uri, onCall.variables],
        ["notes://ops/{topic}", { topic: "on call" }],
        "the template with more literal characters wins",
      );
      const tie = await resolve("notes://a/xbx");
      assert.deepEqual(
        [tie.publication!.uri, tie.publication!.entryId, tie.variables],
        ["notes://{team}/x{topic}", slashX!.id, { team: "a", topic: "bx" }],
        "of two as specific, the smaller URI wins",
      );
      const exact = await resolve("notes://ops/pager");
      assert.deepEqual(
        [exact.publication!.uri, exact.publication!.template, exact.variables],
        ["notes://ops/pager", false, {}],
      );
      for (const uri of ["notes://ops", "notes://eng/a/b", "notes://eng/", "notes://eng/%zz", "other://ops/x"]) {
        await expectError(resolve(uri), "ENTRY_NOT_FOUND", /^no resource at /);
      }

      const moved = await publish(client, a1, "notes://ops/pager", pagerMoved!.id, { description: "moved" });
      assert.deepEqual(
        [moved.replaced, moved.publication!.entryId, moved.publication!.description],
        [true, pagerMoved!.id, "moved"],
      );
      assert.equal((await resolve("notes://ops/pager")).publication!.entryId, pagerMoved!.id);
      assert.ok(
        moved.publication!.createdAt!.seconds <= moved.publication!.updatedAt!.seconds,
        "the first publish's time is kept",
      );
      const actions = (await publicationAudit(context, tenantA)).map((row) => [row.action, row.details.replaced]);
      assert.deepEqual(actions, [
        ["resource.publish", false],
        ["resource.publish", false],
        ["resource.publish", false],
        ["resource.publish", false],
        ["resource.publish", false],
        ["resource.publish", true],
      ]);
    });

    test("unpublish removes the caller's own publication; pages run by URI and can hold templates only", async () => {
      const { client, db } = context;
      const { a1, tenantA } = principalTrio("publications-pages");
      const entry = await commitText(client, a1, "docs", "Paged.");
      const uris = ["b://1", "a://{x}", "c://3", "a://2", "b://{y}z"];
      for (const uri of uris) await publish(client, a1, uri, entry.id);
      const first = await client.listPublications({ principal: a1, limit: 2 });
      const second = await client.listPublications({ principal: a1, limit: 2, cursor: first.nextCursor });
      const third = await client.listPublications({ principal: a1, limit: 2, cursor: second.nextCursor });
      assert.deepEqual(
        [first, second, third].map((page) => page.publications.map((publication) => publication.uri)),
        [["a://2", "a://{x}"], ["b://1", "b://{y}z"], ["c://3"]],
        "byte order: digits before braces",
      );
      assert.equal(third.nextCursor, "");
      assert.deepEqual(await listAll(client, a1, true), ["a://{x}", "b://{y}z"]);
      assert.equal((await client.listPublications({ principal: a1 })).publications.length, 5, "0 means 20");
      await expectError(
        client.listPublications({ principal: a1, cursor: "nope" }),
        "INVALID_ARGUMENT",
        /cursor is not one list_publications gave/,
      );
      await expectError(
        client.listPublications({ principal: a1, limit: 101 }),
        "INVALID_ARGUMENT",
        /limit must be 1 to 100/,
      );

      const removed = await client.unpublishResource({ principal: a1, uri: "a://{x}" });
      assert.deepEqual(
        [removed.publication!.uri, removed.publication!.template, removed.publication!.entryId],
        ["a://{x}", true, entry.id],
      );
      await expectError(client.resolvePublication({ principal: a1, uri: "a://anything" }), "ENTRY_NOT_FOUND");
      await expectError(
        client.unpublishResource({ principal: a1, uri: "a://{x}" }),
        "ENTRY_NOT_FOUND",
        /you have published nothing at "a:\/\/\{x\}"/,
      );
      // A template is unpublished by its own text, never by a URI it matches.
      await expectError(
        client.unpublishResource({ principal: a1, uri: "a://anything" }),
        "ENTRY_NOT_FOUND",
        /published nothing at "a:\/\/anything"/,
      );
      assert.deepEqual(await listAll(client, a1), ["a://2", "b://1", "b://{y}z", "c://3"]);
      const audit = await publicationAudit(context, tenantA);
      assert.deepEqual(
        [audit.at(-1)!.action, audit.at(-1)!.target_ids, audit.at(-1)!.details.uri],
        ["resource.unpublish", [entry.id], "a://{x}"],
      );
      const { rows } = await db.query<{ count: number }>(
        "SELECT count(*)::integer AS count FROM resource_publications WHERE tenant = $1",
        [tenantA],
      );
      assert.equal(rows[0]!.count, 4);
    });

    test("an entry the caller may not read, or only quarantined, is published exactly like a missing one", async () => {
      const { client, db } = context;
      const { a1, a2, b1 } = principalTrio("publications-hidden");
      const hidden = await commitText(client, a1, "docs", "a1's private entry");
      const own = await commitText(client, a2, "docs", "a2's own entry, quarantined below");
      const missing = randomId();
      const attempt = (caller: PrincipalInit, id: string) => publish(client, caller, "docs://mine", id);
      for (const [label, caller] of [
        ["another principal's private entry", a2],
        ["another tenant's entry", b1],
      ] as const) {
        const error = await expectIndistinguishable(
          attempt(caller, hidden.id),
          hidden.id,
          attempt(caller, missing),
          missing,
          label,
        );
        assert.equal(error.code, "ENTRY_NOT_FOUND");
        // Byte for byte what a fetch of the same id answers.
        const fetched = await caught(client.getEntryHistory({ principal: caller, id: hidden.id }));
        assert.deepEqual(shapeOf(error), shapeOf(fetched), `${label}: as a fetch by id answers`);
      }
      await db.query("UPDATE entries SET trust_state = 'quarantined' WHERE id = $1", [own.id]);
      await expectIndistinguishable(attempt(a2, own.id), own.id, attempt(a2, missing), missing, "quarantined");
      await db.query("UPDATE entries SET trust_state = 'rejected' WHERE id = $1", [own.id]);
      await expectIndistinguishable(attempt(a2, own.id), own.id, attempt(a2, missing), missing, "rejected");
      await db.query("UPDATE entries SET trust_state = 'unverified' WHERE id = $1", [own.id]);
      await attempt(a2, own.id);
      assert.deepEqual(await listAll(client, a2), ["docs://mine"], "positive control: once trusted it publishes");
      assert.deepEqual(await listAll(client, b1), []);
    });

    test("a target that becomes unreadable answers like a URI never published, and is left out of the list", async () => {
      const { client, db } = context;
      const { a1, a2, tenantA } = principalTrio("publications-gone");
      const nobody = principal(tenantA, "a3");
      const file = randomFile(200);
      await putFile(client, a1, file.data);
      const mine = await commitText(client, a1, "docs", "a1's entry with an image and a file", {
        images: [
          { mimeType: "image/png", data: png(1) },
          { mimeType: "image/png", data: png(2) },
        ],
        artifacts: [file.sha256],
      });
      const doomed = await commitText(client, a1, "docs", "deleted below");
      const borrowed = await commitText(client, a2, "docs", "a2's entry, shared with a1 until revoked", {
        visibility: commonV1.Visibility.SHARED,
      });
      await client.share({
        principal: a2,
        entryIds: [borrowed.id],
        grantees: [subject("a1")],
        permission: storeV1.Permission.READ,
      });
      const targets: [string, string, { imageOrdinal?: number; artifactSha256?: string }][] = [
        ["gone://deleted", doomed.id, {}],
        ["gone://borrowed", borrowed.id, {}],
        ["gone://image", mine.id, { imageOrdinal: 1 }],
        ["gone://file", mine.id, { artifactSha256: file.sha256 }],
        ["tpl://{name}", borrowed.id, {}],
      ];
      // What each URI answers when nobody published it: what it must answer once its target is gone.
      const never = new Map<string, Awaited<ReturnType<typeof resolveFailure>>>();
      for (const [uri] of targets) never.set(uri, await resolveFailure(client, a1, uri));
      never.set("tpl://x", await resolveFailure(client, a1, "tpl://x"));
      for (const [uri, entryId, target] of targets) await publish(client, a1, uri, entryId, target);
      await publish(client, a1, "tpl://{other}", mine.id);
      assert.equal((await listAll(client, a1)).length, 6);
      const stillThere = async (uri: string) => (await client.resolvePublication({ principal: a1, uri })).publication!;

      await client.deleteEntries({ principal: a1, ids: [doomed.id] });
      assert.deepEqual(await resolveFailure(client, a1, "gone://deleted"), never.get("gone://deleted"));
      const { rows } = await db.query("SELECT 1 FROM resource_publications WHERE entry_id = $1", [doomed.id]);
      assert.equal(rows.length, 0, "a deleted entry's publications go with it");

      await client.unshare({ principal: a2, entryIds: [borrowed.id] });
      assert.deepEqual(await resolveFailure(client, a1, "gone://borrowed"), never.get("gone://borrowed"));
      // The template over the borrowed entry no longer competes: the other template, less specific, answers.
      const fallback = await client.resolvePublication({ principal: a1, uri: "tpl://x" });
      assert.deepEqual([fallback.publication!.uri, fallback.variables], ["tpl://{other}", { other: "x" }]);
      assert.ok(!(await listAll(client, a1)).includes("tpl://{name}"));

      await client.updateEntries({
        principal: a1,
        updates: [{ id: mine.id, images: { images: [{ mimeType: "image/png", data: png(1) }] } }],
      });
      assert.deepEqual(await resolveFailure(client, a1, "gone://image"), never.get("gone://image"));
      assert.equal((await stillThere("gone://file")).artifactSha256, file.sha256, "the file is still linked");

      await client.updateEntries({ principal: a1, updates: [{ id: mine.id, artifacts: { sha256: [] } }] });
      assert.deepEqual(await resolveFailure(client, a1, "gone://file"), never.get("gone://file"));
      assert.deepEqual(await listAll(client, a1), ["tpl://{other}"], "the list leaves out every unreadable target");

      await db.query("UPDATE entries SET trust_state = 'quarantined' WHERE id = $1", [mine.id]);
      assert.deepEqual(await resolveFailure(client, a1, "tpl://x"), never.get("tpl://x"), "a quarantined entry");
      assert.deepEqual(await listAll(client, a1), []);
      await db.query("UPDATE entries SET trust_state = 'unverified' WHERE id = $1", [mine.id]);

      // Positive control: grant again, and the borrowed publications come back.
      await client.share({
        principal: a2,
        entryIds: [borrowed.id],
        grantees: [subject("a1")],
        permission: storeV1.Permission.READ,
      });
      assert.equal((await stillThere("gone://borrowed")).entryId, borrowed.id);
      assert.equal(
        (await client.resolvePublication({ principal: a1, uri: "tpl://x" })).publication!.uri,
        "tpl://{name}",
      );
      assert.deepEqual(
        await resolveFailure(client, nobody, "gone://borrowed"),
        never.get("gone://borrowed"),
        "and still for a1 alone",
      );
      const long = `tpl://${"x".repeat(4091)}`;
      await expectError(client.resolvePublication({ principal: a1, uri: long }), "ENTRY_NOT_FOUND");
      assert.equal(
        (await client.resolvePublication({ principal: a1, uri: long.slice(0, 4096) })).publication!.uri,
        "tpl://{name}",
      );
    });

    test("another principal, in the tenant or not, neither resolves nor unpublishes a publication, even of an entry it may read", async () => {
      const { client } = context;
      const { a1, a2, b1, tenantA } = principalTrio("publications-others");
      const open = await commitText(client, a1, "docs", "tenant-wide", { visibility: commonV1.Visibility.TENANT });
      const mine = await commitText(client, a2, "docs", "a2's own");
      const uris = ["docs://open", "docs://{page}"];
      const never = new Map<string, Awaited<ReturnType<typeof resolveFailure>>>();
      for (const uri of [...uris, "docs://page"]) never.set(uri, await resolveFailure(client, a2, uri));
      for (const uri of uris) await publish(client, a1, uri, open.id);
      assert.equal(
        (await client.getEntries({ principal: a2, ids: [open.id] })).entries.length,
        1,
        "a2 reads the entry",
      );
      for (const caller of [a2, b1]) {
        for (const uri of ["docs://open", "docs://page"]) {
          assert.deepEqual(await resolveFailure(client, caller, uri), never.get(uri), "as if never published");
        }
        for (const uri of uris)
          await expectError(
            client.unpublishResource({ principal: caller, uri }),
            "ENTRY_NOT_FOUND",
            /published nothing/,
          );
        assert.deepEqual(await listAll(client, caller), []);
      }
      assert.equal(
        (await client.resolvePublication({ principal: a1, uri: "docs://open" })).publication!.entryId,
        open.id,
      );

      // The namespace is each principal's own: a2 may publish the same URI for itself.
      const ownCopy = await publish(client, a2, "docs://open", mine.id);
      assert.equal(ownCopy.replaced, false);
      assert.equal(
        (await client.resolvePublication({ principal: a2, uri: "docs://open" })).publication!.entryId,
        mine.id,
      );
      assert.equal(
        (await client.resolvePublication({ principal: a1, uri: "docs://open" })).publication!.entryId,
        open.id,
      );

      const reader = principal(tenantA, "a1", { scopes: ["context:read"] });
      await expectError(publish(client, reader, "docs://x", open.id), "PERMISSION_DENIED", /context:write/);
      await expectError(client.unpublishResource({ principal: reader, uri: "docs://open" }), "PERMISSION_DENIED");
      const { rows: denied } = await context.db.query<{ action: string; actor: string }>(
        "SELECT action, actor FROM audit_log WHERE tenant = $1 AND outcome = 'denied' ORDER BY seq",
        [tenantA],
      );
      assert.deepEqual(
        denied.map((row) => [row.action, row.actor]),
        [
          ["resource.publish", "a1"],
          ["resource.unpublish", "a1"],
        ],
        "each refusal is audited",
      );
      assert.equal(
        (await client.resolvePublication({ principal: reader, uri: "docs://open" })).publication!.entryId,
        open.id,
      );
    });

    test("a principal holds at most 100 templates and 10,000 publications; a retried publish or unpublish replays", async () => {
      const { client, db } = context;
      const { a1, tenantA } = principalTrio("publications-limits");
      const entry = await commitText(client, a1, "docs", "Much published.");
      for (let index = 0; index < 95; index++) await publish(client, a1, `t://${index}/{x}`, entry.id);
      // Publishes at once queue on the publisher's lock: exactly as many as fit get in.
      const racing = await Promise.allSettled(
        Array.from({ length: 10 }, (_, index) => publish(client, a1, `t://${95 + index}/{x}`, entry.id)),
      );
      assert.deepEqual(
        [racing.filter((outcome) => outcome.status === "fulfilled").length, (await listAll(client, a1, true)).length],
        [5, 100],
      );
      for (const outcome of racing)
        if (outcome.status === "rejected") assert.match(String(outcome.reason), /you hold 100 templates/);
      await expectError(
        publish(client, a1, "t://one-more/{x}", entry.id),
        "INVALID_ARGUMENT",
        /you hold 100 templates, the most one principal may hold/,
      );
      const again = await publish(client, a1, "t://7/{x}", entry.id, { description: "republished" });
      assert.equal(again.replaced, true, "a template already held may be published again");
      await publish(client, a1, "t://exact", entry.id);

      await db.query(
        `INSERT INTO resource_publications (tenant, publisher, uri, is_template, literal_chars, entry_id, created_at, updated_at)
         SELECT $1::text, 'a1', 'bulk://' || n, false, 7, $2::uuid, now(), now() FROM generate_series(1, 9899) AS n`,
        [tenantA, entry.id],
      );
      await expectError(
        publish(client, a1, "t://past-the-limit", entry.id),
        "INVALID_ARGUMENT",
        /you hold 10000 publications, the most one principal may hold/,
      );
      assert.equal((await publish(client, a1, "t://exact", entry.id)).replaced, true, "moving one is still allowed");
      await client.unpublishResource({ principal: a1, uri: "bulk://1" });
      await publish(client, a1, "t://past-the-limit", entry.id);

      await client.unpublishResource({ principal: a1, uri: "bulk://2" });
      const idempotency = { key: "publish-once", fingerprint: "f1" };
      const first = await client.publishResource({ principal: a1, uri: "t://idem", entryId: entry.id, idempotency });
      const retried = await client.publishResource({ principal: a1, uri: "t://idem", entryId: entry.id, idempotency });
      assert.deepEqual(
        [retried.replaced, retried.publication!.updatedAt],
        [first.replaced, first.publication!.updatedAt],
        "the recorded response, not a second publish",
      );
      const unpublishKey = { key: "unpublish-once", fingerprint: "f2" };
      const removed = await client.unpublishResource({ principal: a1, uri: "t://idem", idempotency: unpublishKey });
      const replayed = await client.unpublishResource({ principal: a1, uri: "t://idem", idempotency: unpublishKey });
      assert.equal(replayed.publication!.uri, removed.publication!.uri, "a retry replays instead of finding nothing");
      const audit = await publicationAudit(context, tenantA);
      assert.deepEqual(
        audit.filter((row) => row.details.uri === "t://idem").map((row) => row.action),
        ["resource.publish", "resource.unpublish"],
        "each ran and was audited once",
      );
    });
  });
}
