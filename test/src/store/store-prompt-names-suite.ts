/** Prompt names: on writes, reads, versions, restores, folds and filters; unique per owner, changed by the owner alone. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { createGrpcClient } from "@context-hub/common";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { commonV1, searchV1, type storeV1 } from "@context-hub/proto";
import { createUuidV7, isUniqueViolationOf, promptNameIndex, promptNameTakenCode } from "@context-hub/store/testing";
import {
  commitText,
  expectError,
  generatedFor,
  idsOf,
  insertGrant,
  newTenant,
  openConnection,
  principal,
  principalTrio,
  startTestStore,
  tenantFootprint,
  textEntry,
  type PrincipalInit,
  type StoreSuiteContext,
} from "./store-fixtures.js";

const admin = ["context:read", "context:write", "context:admin"];

/** The message of a name another of the owner's prompts has, naming it when the store knows which. */
const taken = (name: string, holder?: string) =>
  new RegExp(
    `^prompt_name "${name.replace(/\./g, "\\.")}" is already the name of ${holder === undefined ? "another of your prompts" : `your prompt ${holder}`}: rename or delete that one first$`,
  );

export function definePromptNameTests(context: StoreSuiteContext): void {
  describe("prompt names", () => {
    const getOne = async (caller: PrincipalInit, id: string) =>
      (await context.client.getEntries({ principal: caller, ids: [id] })).entries[0];
    const nameOf = async (caller: PrincipalInit, id: string) => (await getOne(caller, id))?.promptName;
    const prompt = (caller: PrincipalInit, text: string, promptName: string, threadId = "prompts") =>
      commitText(context.client, caller, threadId, text, { kind: "prompt", promptName });
    const update = (caller: PrincipalInit, change: MessageInitShape<typeof storeV1.EntryUpdateSchema>) =>
      context.client.updateEntries({ principal: caller, atomic: true, updates: [change] });

    test("a prompt keeps the name it was written with; a fetch, a listing, a search hit and its history show it", async () => {
      const { client, db, options } = context;
      const a1 = principal(newTenant("names-write"), "a1");
      const named = await prompt(a1, "Summarise the harbor report for the board.", "harbor.summary-v1", "t");
      const plain = await commitText(client, a1, "t", "A harbor note without a name.");
      assert.equal(await nameOf(a1, named.id), "harbor.summary-v1");
      assert.equal(await nameOf(a1, plain.id), "");
      const listed = await client.listEntries({ principal: a1, filter: { threadId: "t" } });
      assert.deepEqual(
        listed.entries.map((entry) => [entry.id, entry.promptName]),
        [
          [plain.id, ""],
          [named.id, "harbor.summary-v1"],
        ],
      );
      const history = await client.getEntryHistory({ principal: a1, id: named.id, version: 0, limit: 0 });
      assert.deepEqual(
        history.versions.map((version) => [version.version, version.promptName]),
        [[1, "harbor.summary-v1"]],
      );
      const searching = await startTestStore(options, db);
      const search = createGrpcClient(searchV1.SearchService, {
        address: `127.0.0.1:${searching.service.port}`,
        peer: "store",
        deadlineMs: 60_000,
      });
      try {
        const hits = await search.fullTextSearch({ principal: a1, query: "harbor", limit: 10 });
        assert.deepEqual(
          hits.hits.map((hit) => [hit.entry!.id, hit.entry!.promptName]).sort(),
          [
            [named.id, "harbor.summary-v1"],
            [plain.id, ""],
          ].sort(),
        );
      } finally {
        search.close();
        await searching.close();
      }
    });

    test("a name that is not one, or on an entry that is not a prompt, is refused naming prompt_name, and stores nothing", async () => {
      const { client, db } = context;
      const tenant = newTenant("names-refused");
      const a1 = principal(tenant, "a1");
      const note = await commitText(client, a1, "t", "already here");
      const before = await tenantFootprint(db, tenant);
      const commit = (overrides: Parameters<typeof textEntry>[2]) =>
        client.commit({
          principal: a1,
          entry: textEntry("t", "new text", overrides),
          generated: generatedFor("new text"),
        });
      await expectError(
        commit({ kind: "prompt", promptName: "9 lives" }),
        "INVALID_ARGUMENT",
        /^prompt_name "9 lives" is not a prompt name: a letter or "_", then up to 63 letters, digits, "_", "\." or "-"$/,
      );
      await expectError(
        commit({ kind: "prompt", promptName: "abcdef12-3456" }),
        "INVALID_ARGUMENT",
        /^prompt_name "abcdef12-3456" has the form of an entry id/,
      );
      const refused = await expectError(
        commit({ kind: "document", promptName: "brief" }),
        "INVALID_ARGUMENT",
        /^prompt_name: only an entry of kind "prompt" has a prompt name \(this one is a "document"\)$/,
      );
      assert.match(refused.remedy ?? "", /set kind to "prompt", or leave prompt_name out/);
      await expectError(
        commit({ promptName: "brief" }),
        "INVALID_ARGUMENT",
        /only an entry of kind "prompt" has a prompt name \(this one is a "note"\)/,
      );
      await expectError(
        update(a1, { id: note.id, promptName: "brief" }),
        "INVALID_ARGUMENT",
        /^updates\[0\]\.prompt_name: only an entry of kind "prompt" has a prompt name/,
      );
      await expectError(
        update(a1, { id: note.id, promptName: "no way" }),
        "INVALID_ARGUMENT",
        /^updates\[0\]\.prompt_name "no way" is not a prompt name/,
      );
      assert.deepEqual(await tenantFootprint(db, tenant), before, "nothing was written");
    });

    test("an owner's prompts have different names: a taken one is refused naming the prompt that has it, and nothing is stored", async () => {
      const { client, db } = context;
      const tenant = newTenant("names-taken");
      const a1 = principal(tenant, "a1");
      const first = await prompt(a1, "The first brief.", "brief");
      const other = await prompt(a1, "Another prompt.", "other", "elsewhere");
      const before = await tenantFootprint(db, tenant);
      const refused = await expectError(
        client.commit({
          principal: a1,
          entry: textEntry("elsewhere", "A second brief.", { kind: "prompt", promptName: "brief" }),
          generated: generatedFor("A second brief."),
        }),
        promptNameTakenCode,
        taken("brief", first.id),
      );
      assert.deepEqual(refused.details, { prompt_name: "brief", id: first.id });
      await expectError(
        client.commitBatch({
          principal: a1,
          atomic: true,
          entries: [
            { entry: textEntry("t", "fine", { kind: "prompt", promptName: "fresh" }), generated: generatedFor("fine") },
            {
              entry: textEntry("t", "twin", { kind: "prompt", promptName: "fresh" }),
              generated: generatedFor("twin"),
            },
          ],
        }),
        promptNameTakenCode,
        /prompt_name "fresh" is already the name of your prompt [0-9a-f-]{36}/,
      );
      await expectError(
        update(a1, { id: other.id, promptName: "brief" }),
        promptNameTakenCode,
        taken("brief", first.id),
      );
      assert.deepEqual(await tenantFootprint(db, tenant), before, "nothing was written");
      assert.equal(await nameOf(a1, other.id), "other");

      const items = await client.commitBatch({
        principal: a1,
        atomic: false,
        entries: [
          { entry: textEntry("t", "one", { kind: "prompt", promptName: "brief" }), generated: generatedFor("one") },
          { entry: textEntry("t", "two", { kind: "prompt", promptName: "two" }), generated: generatedFor("two") },
        ],
      });
      assert.deepEqual(
        items.results.map((result) => [result.ack !== undefined, result.error?.code ?? null]),
        [
          [false, promptNameTakenCode],
          [true, null],
        ],
        "a batch item with a taken name fails alone",
      );
      const listed = await client.listEntries({ principal: a1, filter: { promptName: "brief" } });
      assert.deepEqual(idsOf(listed.entries), [first.id], "one prompt has the name");
    });

    test("two owners may give their prompts the same name, and a retransmit keeps its prompt's name unless it names another", async () => {
      const { client } = context;
      const { a1, a2 } = principalTrio("names-owners");
      const mine = await prompt(a1, "Brief the team.", "brief");
      const theirs = await prompt(a2, "Brief the team.", "brief");
      assert.notEqual(mine.id, theirs.id);
      assert.deepEqual([await nameOf(a1, mine.id), await nameOf(a2, theirs.id)], ["brief", "brief"]);

      const again = await commitText(client, a1, "prompts", "Brief the team.", { kind: "prompt" });
      assert.deepEqual([again.id, again.deduplicated, again.version], [mine.id, true, 1], "no name: no change");
      assert.equal(await nameOf(a1, mine.id), "brief");
      const renamed = await commitText(client, a1, "prompts", "Brief the team.", {
        kind: "prompt",
        promptName: "team-brief",
      });
      assert.deepEqual([renamed.id, renamed.version], [mine.id, 2]);
      assert.equal(await nameOf(a1, mine.id), "team-brief");
      const blocker = await prompt(a1, "Something else.", "brief");
      await expectError(
        commitText(client, a1, "prompts", "Brief the team.", { kind: "prompt", promptName: "brief" }),
        promptNameTakenCode,
        taken("brief", blocker.id),
      );
      assert.deepEqual([await nameOf(a1, mine.id), (await getOne(a1, mine.id))?.version], ["team-brief", 2]);
    });

    test("an update renames or removes a name, a deleted prompt frees its name, and a kind change must take the name away with it", async () => {
      const { client } = context;
      const a1 = principal(newTenant("names-update"), "a1");
      const created = await prompt(a1, "Draft the release notes.", "notes");
      await update(a1, { id: created.id, promptName: "release.notes" });
      assert.equal(await nameOf(a1, created.id), "release.notes");
      const same = await update(a1, { id: created.id, promptName: "release.notes" });
      assert.equal(same.results[0]?.ack?.version, 2, "the same name changes nothing");
      const listedOld = await client.listEntries({ principal: a1, filter: { promptName: "notes" } });
      assert.deepEqual(idsOf(listedOld.entries), [], "the old name names nothing now");
      const heir = await prompt(a1, "Another prompt, once refused the name.", "heir");
      await expectError(update(a1, { id: heir.id, promptName: "release.notes" }), promptNameTakenCode);

      const kindAway = await expectError(
        update(a1, { id: created.id, kind: "document" }),
        "INVALID_ARGUMENT",
        /^updates\[0\]\.kind: the entry is the prompt named "release\.notes", and only an entry of kind "prompt" has a prompt name$/,
      );
      assert.match(kindAway.remedy ?? "", /remove the name in the same update \(updates\[0\]\.prompt_name ""\)/);
      assert.equal((await getOne(a1, created.id))?.kind, "prompt");
      await update(a1, { id: created.id, kind: "document", promptName: "" });
      const changed = await getOne(a1, created.id);
      assert.deepEqual([changed?.kind, changed?.promptName], ["document", ""]);
      const history = await client.getEntryHistory({ principal: a1, id: created.id, version: 0, limit: 0 });
      assert.deepEqual(
        history.versions.map((version) => [version.version, version.kind, version.promptName]),
        [
          [3, "document", ""],
          [2, "prompt", "release.notes"],
          [1, "prompt", "notes"],
        ],
      );

      const holder = await prompt(a1, "Holds a name until deleted.", "held");
      await expectError(update(a1, { id: heir.id, promptName: "held" }), promptNameTakenCode, taken("held", holder.id));
      await client.deleteEntries({ principal: a1, ids: [holder.id], atomic: true });
      await update(a1, { id: heir.id, promptName: "held" });
      assert.equal(await nameOf(a1, heir.id), "held", "the deleted prompt freed its name");
      await update(a1, { id: heir.id, promptName: "" });
      assert.equal(await nameOf(a1, heir.id), "");
    });

    test("only the owner or an admin changes a name: a writer with a grant is refused and nothing changes", async () => {
      const { client, db } = context;
      const tenant = newTenant("names-owner");
      const a1 = principal(tenant, "a1");
      const a2 = principal(tenant, "a2");
      const root = principal(tenant, "root", { scopes: admin });
      const shared = await commitText(client, a1, "prompts", "Brief {{who}}.", {
        kind: "prompt",
        promptName: "brief",
        promptArguments: [{ name: "who" }],
        visibility: commonV1.Visibility.SHARED,
      });
      await insertGrant(db, {
        tenant,
        grantor: "a1",
        entryId: shared.id,
        granteeKind: "subject",
        grantee: "a2",
        permission: "write",
      });
      const before = await tenantFootprint(db, tenant);
      for (const promptName of ["renamed", ""])
        await expectError(
          update(a2, { id: shared.id, promptName }),
          "PERMISSION_DENIED",
          new RegExp(`^only the owner of entry ${shared.id} or a tenant admin may change its prompt_name$`),
        );
      assert.deepEqual(await tenantFootprint(db, tenant), before, "nothing changed");
      assert.equal(await nameOf(a1, shared.id), "brief");
      const tagged = await update(a2, { id: shared.id, tags: { tags: ["by-a2"] }, promptName: "brief" });
      assert.equal(tagged.results[0]?.ack?.version, 2, "the grantee changes the rest, repeating the name");
      await update(root, { id: shared.id, promptName: "admin-renamed" });
      assert.equal(await nameOf(a1, shared.id), "admin-renamed", "an admin may");
      const blocker = await prompt(a1, "The owner's other prompt.", "taken-by-a1");
      await expectError(
        update(root, { id: shared.id, promptName: "taken-by-a1" }),
        promptNameTakenCode,
        taken("taken-by-a1", blocker.id),
      );
    });

    test("a version kept while private shows its name only to its owner and admins: redacted, it has none", async () => {
      const { client } = context;
      const tenant = newTenant("names-redacted");
      const a1 = principal(tenant, "a1");
      const a2 = principal(tenant, "a2");
      const root = principal(tenant, "root", { scopes: admin });
      const created = await prompt(a1, "Private at first.", "secret-name");
      await update(a1, { id: created.id, visibility: commonV1.Visibility.TENANT, promptName: "public-name" });
      const namesSeenBy = async (caller: PrincipalInit) =>
        (await client.getEntryHistory({ principal: caller, id: created.id, version: 0, limit: 0 })).versions.map(
          (version) => [version.version, version.redacted, version.promptName],
        );
      assert.deepEqual(await namesSeenBy(a2), [
        [2, false, "public-name"],
        [1, true, ""],
      ]);
      for (const caller of [a1, root])
        assert.deepEqual(await namesSeenBy(caller), [
          [2, false, "public-name"],
          [1, false, "secret-name"],
        ]);
    });

    test("a restore brings back the version's name, and is refused when another of the owner's prompts has it now", async () => {
      const { client, db } = context;
      const tenant = newTenant("names-restore");
      const a1 = principal(tenant, "a1");
      const created = await prompt(a1, "Plan the launch.", "launch");
      await update(a1, { id: created.id, promptName: "launch-v2" });
      await update(a1, { id: created.id, restoredFromVersion: 1 });
      let restored = await getOne(a1, created.id);
      assert.deepEqual([restored?.version, restored?.promptName], [3, "launch"]);
      await expectError(
        update(a1, { id: created.id, restoredFromVersion: 2, promptName: "other" }),
        "INVALID_ARGUMENT",
        /a restore restores that version's/,
      );
      const usurper = await prompt(a1, "Took the name meanwhile.", "launch-v2");
      const before = await tenantFootprint(db, tenant);
      await expectError(
        update(a1, { id: created.id, restoredFromVersion: 2 }),
        promptNameTakenCode,
        taken("launch-v2", usurper.id),
      );
      assert.deepEqual(await tenantFootprint(db, tenant), before, "nothing changed");
      restored = await getOne(a1, created.id);
      assert.deepEqual([restored?.version, restored?.promptName], [3, "launch"]);
      const history = await client.getEntryHistory({ principal: a1, id: created.id, version: 0, limit: 0 });
      assert.equal(history.versions.length, 3, "no version was kept for the refused restore");
    });

    test("prompt_name and own_only filter listings, as_of listings and both search legs, and never reveal another's entry", async () => {
      const { client, db, options } = context;
      const { a1, a2, b1 } = principalTrio("names-filter");
      const text = (what: string) => `Dockside inspection ${what}`;
      const mine = await commitText(client, a1, "t", text("checklist"), { kind: "prompt", promptName: "inspect" });
      const myNote = await commitText(client, a1, "t", text("note"), { visibility: commonV1.Visibility.TENANT });
      // Planted neighbours: the same name, shared with everyone in the tenant, and in another tenant.
      const theirs = await commitText(client, a2, "t", text("a2's checklist"), {
        kind: "prompt",
        promptName: "inspect",
        visibility: commonV1.Visibility.TENANT,
      });
      await commitText(client, b1, "t", text("b1's checklist"), { kind: "prompt", promptName: "inspect" });
      const filters: [{ promptName?: string; ownOnly?: boolean; kinds?: string[] }, string[]][] = [
        [{ promptName: "inspect" }, [theirs.id, mine.id]],
        [{ promptName: "inspect", ownOnly: true }, [mine.id]],
        [{ ownOnly: true }, [myNote.id, mine.id]],
        [{ promptName: "Inspect" }, []],
        [{ promptName: "inspec" }, []],
        [{ promptName: "abcdef12" }, []],
      ];
      const searching = await startTestStore(options, db);
      const search = createGrpcClient(searchV1.SearchService, {
        address: `127.0.0.1:${searching.service.port}`,
        peer: "store",
        deadlineMs: 60_000,
      });
      try {
        for (const [filter, expected] of filters) {
          const listed = await client.listEntries({ principal: a1, filter });
          assert.deepEqual(idsOf(listed.entries), expected, `listing ${JSON.stringify(filter)}`);
          const fullText = await search.fullTextSearch({ principal: a1, query: "dockside", filter, limit: 20 });
          assert.deepEqual(
            fullText.hits.map((hit) => hit.entry!.id).sort(),
            [...expected].sort(),
            `full text ${JSON.stringify(filter)}`,
          );
          const semantic = await search.semanticSearch({
            principal: a1,
            embeddingModel: "test-model",
            vector: generatedFor(text("checklist")).chunks[0]!.vector,
            filter,
            limit: 20,
          });
          assert.deepEqual(
            semantic.hits.map((hit) => hit.entry!.id).sort(),
            [...expected].sort(),
            `semantic ${JSON.stringify(filter)}`,
          );
        }
      } finally {
        search.close();
        await searching.close();
      }
      const then = new Date();
      await sleep(5);
      await update(a1, { id: mine.id, promptName: "inspect-later" });
      const asOf = timestampFromDate(then);
      const past = await client.listEntries({ principal: a1, filter: { promptName: "inspect", ownOnly: true, asOf } });
      assert.deepEqual(
        past.entries.map((entry) => [entry.id, entry.promptName]),
        [[mine.id, "inspect"]],
        "as_of reads the name the version had",
      );
      const now = await client.listEntries({ principal: a1, filter: { promptName: "inspect", ownOnly: true } });
      assert.deepEqual(idsOf(now.entries), []);
      await expectError(
        client.listEntries({ principal: a1, filter: { promptName: "not a name" } }),
        "INVALID_ARGUMENT",
        /^filter\.prompt_name "not a name" is not a prompt name/,
      );
    });

    test("the database keeps the rule too: a unique violation is refused as a taken name, also when a write loses a race", async () => {
      const { client, db, options } = context;
      const tenant = newTenant("names-race");
      const a1 = principal(tenant, "a1");
      const held = await prompt(a1, "Holds the name.", "raced");
      const direct = (id: string, name: string) =>
        `INSERT INTO entries (id, tenant, thread_id, source, owner, visibility, text, text_length, preview, content_hash, kind, prompt_name)
         VALUES ('${id}', '${tenant}', 'direct', 'user', 'a1', 'private', 'x', 1, 'x', encode(sha256(convert_to('${id}', 'UTF8')), 'hex'), 'prompt', '${name}')`;
      const violation = await db.query(direct(createUuidV7(), "raced")).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(isUniqueViolationOf(violation, promptNameIndex), `the index refuses it: ${String(violation)}`);
      await assert.rejects(
        db.query(
          `INSERT INTO entries (id, tenant, thread_id, source, owner, visibility, text, text_length, preview, content_hash, kind, prompt_name)
           VALUES ('${createUuidV7()}', '${tenant}', 'direct', 'user', 'a1', 'private', 'x', 1, 'x', encode(sha256(convert_to('noted', 'UTF8')), 'hex'), 'note', 'noted')`,
        ),
        /entries_prompt_name_check/,
        "only a prompt has a name",
      );
      assert.equal(await nameOf(a1, held.id), "raced");
      // Only a server lets another session hold an uncommitted row the store's write then waits for.
      if (db.kind !== "postgres") return;
      const other = await openConnection(options);
      try {
        const before = await tenantFootprint(db, tenant);
        let write: Promise<unknown> | undefined;
        await other.transaction(async (tx) => {
          await tx.query(direct(createUuidV7(), "contested"));
          write = client.commit({
            principal: a1,
            entry: textEntry("t", "Wants the contested name.", { kind: "prompt", promptName: "contested" }),
            generated: generatedFor("Wants the contested name."),
          });
          write.catch(() => undefined);
          // Wait until the store's insert waits on the uncommitted row's index entry.
          for (let tries = 0; tries < 200; tries += 1) {
            const { rows } = await db.query<{ waiting: number }>(
              "SELECT count(*)::integer AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'transactionid'",
            );
            if ((rows[0]?.waiting ?? 0) > 0) return;
            await sleep(25);
          }
          assert.fail("the store's insert never waited on the contested name");
        });
        const refused = await expectError(write!, promptNameTakenCode, taken("contested"));
        assert.deepEqual(refused.details, { prompt_name: "contested" });
        const after = await tenantFootprint(db, tenant);
        assert.deepEqual(
          after,
          { ...before, entries: before.entries! + 1, versions: before.versions! + 1 },
          "only the other session's row",
        );
      } finally {
        await other.close();
      }
    });
  });
}
