/** API keys: stored by hash, listed without it, revoked by id or hint, looked up while active. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { toJsonString } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { storeV1 } from "@context-hub/proto";
import { apiKeyHint, generateApiKey, hashApiKey } from "@context-hub/common";
import { countRows, expectError, newTenant, type StoreSuiteContext } from "./store-fixtures.js";

export function defineApiKeyTests(context: StoreSuiteContext): void {
  describe("API keys", () => {
    const keyFor = (tenant: string, subject: string, overrides: Record<string, unknown> = {}) => {
      const secret = generateApiKey();
      return {
        secret,
        hash: hashApiKey(secret),
        key: {
          hint: apiKeyHint(secret),
          tenant,
          subject,
          groups: ["ops"],
          scopes: ["context:read", "context:write"],
          description: `${subject}'s key`,
          ...overrides,
        },
      };
    };

    test("a key is created, listed newest first without its hash, looked up while active and revoked by id or hint", async () => {
      const { client, db } = context;
      const tenant = newTenant("keys");
      const other = newTenant("keys-other");
      const expiresAt = timestampFromDate(new Date(Date.now() + 86_400_000));
      const first = keyFor(tenant, "ci-bot", { expiresAt });
      const second = keyFor(tenant, "alice");
      const elsewhere = keyFor(other, "bob");

      const created = (
        await client.createApiKey({
          key: { ...first.key, id: "ignored", revokedAt: timestampFromDate(new Date()) },
          keyHash: first.hash,
        })
      ).key!;
      assert.notEqual(created.id, "ignored", "the store assigns the id");
      assert.deepEqual(
        [
          created.hint,
          created.tenant,
          created.subject,
          created.groups,
          created.scopes,
          created.description,
          created.revokedAt,
        ],
        [first.key.hint, tenant, "ci-bot", ["ops"], ["context:read", "context:write"], "ci-bot's key", undefined],
      );
      assert.deepEqual(timestampDate(created.expiresAt!), timestampDate(expiresAt));
      await client.createApiKey({ key: second.key, keyHash: second.hash });
      await client.createApiKey({ key: elsewhere.key, keyHash: elsewhere.hash });

      const listed = await client.listApiKeys({ tenant });
      assert.deepEqual(
        listed.keys.map((key) => key.subject),
        ["alice", "ci-bot"],
        "newest first, one tenant only",
      );
      const everything = await client.listApiKeys({});
      assert.ok(
        everything.keys.some((key) => key.tenant === other) && everything.keys.some((key) => key.tenant === tenant),
        "an empty tenant lists every tenant",
      );
      assert.ok(
        !toJsonString(storeV1.ListApiKeysResponseSchema, everything).includes(first.hash),
        "no listing carries a hash",
      );

      const found = (await client.lookupApiKey({ keyHash: first.hash })).key!;
      assert.deepEqual(
        [found.id, found.subject, found.scopes, timestampDate(found.expiresAt!)],
        [created.id, "ci-bot", ["context:read", "context:write"], timestampDate(expiresAt)],
      );
      assert.equal(
        (await client.lookupApiKey({ keyHash: hashApiKey(generateApiKey()) })).key,
        undefined,
        "an unknown key is absent",
      );

      const revoked = (await client.revokeApiKey({ id: created.id })).key!;
      assert.ok(revoked.revokedAt !== undefined);
      const afterRevocation = await client.lookupApiKey({ keyHash: first.hash });
      assert.equal(afterRevocation.key, undefined, "a revoked key is absent");
      assert.equal(
        afterRevocation.revoked,
        true,
        "and said to be revoked, so no other source of the key can bring it back",
      );
      assert.equal((await client.lookupApiKey({ keyHash: second.hash })).revoked, false);
      assert.equal(
        (await client.lookupApiKey({ keyHash: hashApiKey(generateApiKey()) })).revoked,
        false,
        "an unknown key is not revoked",
      );
      const again = (await client.revokeApiKey({ id: created.id.toUpperCase() })).key!;
      assert.deepEqual(
        timestampDate(again.revokedAt!),
        timestampDate(revoked.revokedAt!),
        "revoking twice keeps the first time",
      );
      assert.deepEqual(
        (await client.listApiKeys({ tenant })).keys.map((key) => key.subject),
        ["alice"],
        "revoked keys are left out",
      );
      assert.deepEqual(
        (await client.listApiKeys({ tenant, includeRevoked: true })).keys.map((key) => key.subject),
        ["alice", "ci-bot"],
      );

      const byHint = (await client.revokeApiKey({ id: second.key.hint })).key!;
      assert.deepEqual([byHint.subject, byHint.revokedAt !== undefined], ["alice", true]);
      assert.equal(
        (await client.revokeApiKey({ id: second.key.hint })).key?.id,
        byHint.id,
        "a hint naming only revoked keys names the latest",
      );
      assert.equal(await countRows(db, "api_keys", "tenant = $1 AND revoked_at IS NOT NULL", [tenant]), 2);
    });

    test("creating and revoking a key is audited in its tenant, under the administrator who asked or as the operator", async () => {
      const { client, db } = context;
      const tenant = newTenant("keys-audit");
      const byAdmin = keyFor(tenant, "ci-bot");
      const byOperator = keyFor(tenant, "nightly");
      const created = (await client.createApiKey({ key: byAdmin.key, keyHash: byAdmin.hash, actor: "alice" })).key!;
      const other = (await client.createApiKey({ key: byOperator.key, keyHash: byOperator.hash })).key!;
      await client.revokeApiKey({ id: created.id, actor: "alice" });
      // A second revocation changes nothing, and records nothing.
      await client.revokeApiKey({ id: created.id, actor: "alice" });
      await client.revokeApiKey({ id: byOperator.key.hint });
      const { rows } = await db.query<{ actor: string; action: string; target_ids: string[]; details: unknown }>(
        "SELECT actor, action, target_ids, details FROM audit_log WHERE tenant = $1 ORDER BY seq",
        [tenant],
      );
      assert.deepEqual(
        rows.map((row) => [row.actor, row.action, row.target_ids]),
        [
          ["alice", "key.create", [created.id]],
          ["operator", "key.create", [other.id]],
          ["alice", "key.revoke", [created.id]],
          ["operator", "key.revoke", [other.id]],
        ],
      );
      assert.deepEqual(rows[0]!.details, {
        hint: byAdmin.key.hint,
        subject: "ci-bot",
        scopes: ["context:read", "context:write"],
      });
      assert.ok(!JSON.stringify(rows).includes(byAdmin.hash), "the key's hash is never in the log");
    });

    test("bad keys, taken hashes, unknown and ambiguous names are refused with specific messages", async () => {
      const { client, db } = context;
      const tenant = newTenant("keys-errors");
      const base = keyFor(tenant, "svc");
      const cases: [string, Parameters<typeof client.createApiKey>[0], RegExp][] = [
        ["no key", { keyHash: base.hash }, /key is required/],
        [
          "bad hash",
          { key: base.key, keyHash: base.hash.toUpperCase() },
          /key_hash must be the lowercase hex SHA-256 of the key \(64 characters\)/,
        ],
        ["short hash", { key: base.key, keyHash: "abc" }, /key_hash must be the lowercase hex SHA-256/],
        [
          "no tenant",
          { key: { ...base.key, tenant: "" }, keyHash: base.hash },
          /key\.tenant must be 1 to 256 characters \(got 0\)/,
        ],
        [
          "long subject",
          { key: { ...base.key, subject: "s".repeat(257) }, keyHash: base.hash },
          /key\.subject must be 1 to 256 characters \(got 257\)/,
        ],
        [
          "no scopes",
          { key: { ...base.key, scopes: [] }, keyHash: base.hash },
          /key\.scopes must name at least one of context:read, context:write, context:review, context:admin/,
        ],
        [
          "unknown scope",
          { key: { ...base.key, scopes: ["context:read", "context:root"] }, keyHash: base.hash },
          /key\.scopes\[1\] "context:root" is not a scope/,
        ],
        [
          "expired",
          { key: { ...base.key, expiresAt: timestampFromDate(new Date(Date.now() - 1000)) }, keyHash: base.hash },
          /key\.expires_at must be in the future/,
        ],
        ["no hint", { key: { ...base.key, hint: "" }, keyHash: base.hash }, /key\.hint must be 1 to 64 characters/],
      ];
      for (const [label, request, message] of cases) {
        await expectError(client.createApiKey(request), "INVALID_ARGUMENT", message).catch((error: Error) =>
          assert.fail(`${label}: ${error.message}`),
        );
      }
      assert.equal(await countRows(db, "api_keys", "tenant = $1", [tenant]), 0);

      await client.createApiKey({ key: base.key, keyHash: base.hash });
      await expectError(
        client.createApiKey({ key: { ...base.key, subject: "impostor" }, keyHash: base.hash }),
        "INVALID_ARGUMENT",
        /an API key with this key_hash already exists/,
      );

      const twin = keyFor(tenant, "twin", { hint: base.key.hint });
      await client.createApiKey({ key: twin.key, keyHash: twin.hash });
      await expectError(
        client.revokeApiKey({ id: base.key.hint }),
        "INVALID_ARGUMENT",
        new RegExp(`the hint "${base.key.hint}" matches 2 API keys; revoke by id`),
      );
      await expectError(
        client.revokeApiKey({ id: "chk_nothere" }),
        "ENTRY_NOT_FOUND",
        /no such API key: "chk_nothere"/,
      );
      await expectError(
        client.revokeApiKey({ id: "0190c2a4-5b6c-7d8e-9f00-112233445566" }),
        "ENTRY_NOT_FOUND",
        /no such API key/,
      );
      await expectError(client.revokeApiKey({ id: " " }), "INVALID_ARGUMENT", /id must name the key to revoke/);
      await expectError(
        client.lookupApiKey({ keyHash: "not-a-hash" }),
        "INVALID_ARGUMENT",
        /key_hash must be the lowercase hex SHA-256/,
      );
      const operator = keyFor(tenant, "operator");
      await expectError(
        client.createApiKey({ key: operator.key, keyHash: operator.hash }),
        "INVALID_ARGUMENT",
        /key\.subject "operator" is reserved: the audit log records operator actions under that name/,
      );
      assert.equal(
        await countRows(db, "api_keys", "tenant = $1 AND revoked_at IS NULL", [tenant]),
        2,
        "nothing was revoked",
      );
    });
  });
}
