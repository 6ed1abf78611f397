import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { hubBackends, startKeyedHub, type KeyedHub } from "../support/keyed-hub.js";
import { readWrite, writeKeysFile } from "../support/principals.js";
import { originOf, restCaller, type RestAnswer, type RestCall, type RestCaller } from "../support/rest.js";

/**
 * Planted neighbours for every operation of /api/v1 (the list comes from
 * the served OpenAPI document, so a new operation without a check here
 * fails): without a credential every operation answers 401; a read-only key
 * gets 403 for everything that is not a read and changes nothing; another
 * principal's private entry — and another tenant's entry or API key —
 * answers byte for byte as an id that never existed (once the id itself is
 * normalised); and no listing, search, count, queue, log or key list shows
 * a neighbour's data to another tenant or to a principal it is hidden from.
 * On PGlite and on a PostgreSQL server.
 */

type Json = Record<string, unknown>;
const everyScope = ["context:read", "context:write", "context:review", "context:admin"];
const secretWord = "zebrafalcon";
const thread = "falcon-plans";
/** An id no entry, key, handoff, session or upload has. */
const missingId = "0190aaaa-0000-7000-8000-00000000abcd";
/** A SHA-256 no artifact has. */
const missingSha = "ab".repeat(32);
const base64 = (text: string) => Buffer.from(text).toString("base64");
const sha256Of = (text: string) => createHash("sha256").update(text).digest("hex");

/** How each operation is called; `id` is the entry (or key) it names, where it names one. */
const calls: Record<string, (id: string) => [string, string, RestCall]> = {
  createEntry: () => ["POST", "/entries", { body: { thread_id: thread, source: "user", text: "a neighbour's note" } }],
  createEntries: () => [
    "POST",
    "/entries/batch",
    { body: { entries: [{ thread_id: thread, source: "user", text: "a neighbour's batch note" }] } },
  ],
  listEntries: () => ["GET", "/entries", { query: { thread_id: thread, include_quarantined: true } }],
  getEntry: (id) => ["GET", `/entries/${id}`, { query: { include_quarantined: true } }],
  updateEntry: (id) => ["PATCH", `/entries/${id}`, { body: { tags: ["taken"] } }],
  deleteEntry: (id) => ["DELETE", `/entries/${id}`, {}],
  updateEntries: (id) => ["PATCH", "/entries", { body: { updates: [{ context_id: id, tags: ["taken"] }] } }],
  deleteEntries: (id) => ["POST", "/entries/batch-delete", { body: { context_ids: [id] } }],
  getEntryOutline: (id) => ["GET", `/entries/${id}/outline`, { query: { include_quarantined: true } }],
  getEntryRange: (id) => ["GET", `/entries/${id}/range`, { query: { include_quarantined: true } }],
  searchGrep: () => ["POST", "/search/grep", { body: { pattern: secretWord, include_quarantined: true } }],
  searchDeep: () => ["POST", "/search/deep", { body: { query: secretWord, include_quarantined: true } }],
  searchItems: () => ["POST", "/search/items", { body: { query: secretWord, include_quarantined: true } }],
  answerQuestion: () => ["POST", "/search/answer", { body: { question: secretWord, include_quarantined: true } }],
  whoami: () => ["GET", "/whoami", {}],
  searchFullText: () => ["POST", "/search/fts", { body: { query: secretWord, include_quarantined: true } }],
  searchSemantic: () => ["POST", "/search/semantic", { body: { query: secretWord, include_quarantined: true } }],
  searchHybrid: () => ["POST", "/search/hybrid", { body: { query: secretWord, include_quarantined: true } }],
  listThreads: () => ["GET", "/threads", {}],
  getStatistics: () => ["GET", "/statistics", { query: { days: 3 } }],
  listVersions: (id) => ["GET", `/entries/${id}/versions`, {}],
  getVersion: (id) => ["GET", `/entries/${id}/versions/1`, {}],
  restoreVersion: (id) => ["POST", `/entries/${id}/versions/1/restore`, {}],
  shareEntries: (id) => [
    "POST",
    "/sharing/grants",
    { body: { context_ids: [id], subjects: ["mallory"], permission: "write" } },
  ],
  unshareEntries: (id) => ["POST", "/sharing/revocations", { body: { context_ids: [id] } }],
  listGrants: () => ["GET", "/sharing/grants", {}],
  startHere: () => ["GET", "/start-here", { query: { namespace: thread } }],
  listReviewQueue: () => ["GET", "/review-queue", { query: { states: ["quarantined", "unverified", "rejected"] } }],
  reviewEntry: (id) => [
    "POST",
    `/entries/${id}/review`,
    { body: { decision: "approve" }, headers: { "if-match": '"1"' } },
  ],
  reviewHandoff: (id) => [
    "POST",
    `/handoffs/${id}/review`,
    { body: { decision: "approve" }, headers: { "if-match": '"1"' } },
  ],
  reviewSessionEvent: (id) => [
    "POST",
    `/sessions/${id}/events/1/review`,
    { body: { decision: "approve" }, headers: { "if-match": '"1"' } },
  ],
  getAuditLog: () => ["GET", "/audit-log", {}],
  putMemory: (key) => [
    "PUT",
    `/memories/${encodeURIComponent(key)}`,
    { body: { namespace: "alice", owner: "alice", value: "overwritten" } },
  ],
  getMemory: (key) => [
    "GET",
    `/memories/${encodeURIComponent(key)}`,
    { query: { namespace: "alice", owner: "alice", include_quarantined: true } },
  ],
  listMemories: () => ["GET", "/memories", { query: { namespace: "alice", include_quarantined: true } }],
  listMemoryVersions: (key) => [
    "GET",
    `/memories/${encodeURIComponent(key)}/versions`,
    { query: { namespace: "alice", owner: "alice" } },
  ],
  deleteMemory: (key) => [
    "DELETE",
    `/memories/${encodeURIComponent(key)}`,
    { query: { namespace: "alice", owner: "alice" } },
  ],
  createHandoff: () => [
    "POST",
    "/handoffs",
    { body: { to_subject: "carol", title: "a neighbour's handoff", summary: "something to do" } },
  ],
  getHandoff: (id) => ["GET", `/handoffs/${id}`, {}],
  listHandoffs: () => ["GET", "/handoffs", {}],
  acceptHandoff: (id) => ["POST", `/handoffs/${id}/accept`, {}],
  completeHandoff: (id) => ["POST", `/handoffs/${id}/complete`, { body: { outcome: "done" } }],
  cancelHandoff: (id) => ["POST", `/handoffs/${id}/cancel`, { body: { reason: "taken over" } }],
  startSession: () => ["POST", "/sessions", { body: { surface: "ci", agent: "neighbour" } }],
  getSession: (id) => ["GET", `/sessions/${id}`, {}],
  listSessions: () => ["GET", "/sessions", {}],
  appendSessionEvents: (id) => [
    "POST",
    `/sessions/${id}/events`,
    { body: { events: [{ kind: "note", payload: null }] } },
  ],
  readSessionEvents: (id) => ["GET", `/sessions/${id}/events`, {}],
  endSession: (id) => ["POST", `/sessions/${id}/end`, { body: {} }],
  putArtifact: () => [
    "POST",
    "/artifacts",
    { body: { data: base64("a neighbour's file"), media_type: "text/plain", filename: "n.txt" } },
  ],
  beginArtifactUpload: () => [
    "POST",
    "/artifact-uploads",
    { body: { sha256: sha256Of("abcd"), size: 4, media_type: "text/plain", filename: "n.txt" } },
  ],
  appendArtifactUpload: (id) => [
    "POST",
    `/artifact-uploads/${id}/parts`,
    { body: { offset: 0, data: base64("abcd") } },
  ],
  commitArtifactUpload: (id) => ["POST", `/artifact-uploads/${id}/commit`, {}],
  getArtifact: (sha) => ["GET", `/artifacts/${sha}`, { query: { owner: "alice" } }],
  listArtifacts: () => ["GET", "/artifacts", {}],
  deleteArtifact: (sha) => ["DELETE", `/artifacts/${sha}`, { query: { namespace: "alice", owner: "alice" } }],
  createCollection: () => ["POST", "/collections", { body: { name: "a neighbour's shelf" } }],
  listCollections: () => ["GET", "/collections", {}],
  getCollection: (id) => ["GET", `/collections/${id}`, { query: { include_quarantined: true } }],
  updateCollection: (id) => ["PATCH", `/collections/${id}`, { body: { name: "taken over" } }],
  deleteCollection: (id) => ["DELETE", `/collections/${id}`, {}],
  addCollectionMembers: (id) => ["POST", `/collections/${id}/members`, { body: { context_ids: [missingId] } }],
  removeCollectionMembers: (id) => [
    "POST",
    `/collections/${id}/members/batch-remove`,
    { body: { context_ids: [missingId] } },
  ],
  reorderCollection: (id) => ["PUT", `/collections/${id}/order`, { body: { context_ids: [missingId] } }],
  publishResource: (id) => ["PUT", "/publications", { body: { uri: `docs://${secretWord}/taken`, id } }],
  listPublications: () => ["GET", "/publications", {}],
  unpublishResource: () => ["POST", "/publications/remove", { body: { uri: `docs://${secretWord}/vault` } }],
  createApiKey: () => ["POST", "/api-keys", { body: { subject: "mallory", scopes: ["context:read"] } }],
  listApiKeys: () => ["GET", "/api-keys", { query: { include_revoked: true } }],
  revokeApiKey: (id) => ["DELETE", `/api-keys/${id}`, {}],
};

/** Operations that name one entry, and those whose answers list what the caller can see. */
const namingAnEntry = [
  "updateEntries",
  "deleteEntries",
  "getEntryOutline",
  "getEntryRange",
  "getEntry",
  "updateEntry",
  "deleteEntry",
  "listVersions",
  "getVersion",
  "restoreVersion",
  "shareEntries",
  "unshareEntries",
  "reviewEntry",
  "reviewHandoff",
  "reviewSessionEvent",
  "putMemory",
  "getMemory",
  "listMemoryVersions",
  "deleteMemory",
  "getHandoff",
  "acceptHandoff",
  "completeHandoff",
  "cancelHandoff",
  "getSession",
  "appendSessionEvents",
  "readSessionEvents",
  "endSession",
  "appendArtifactUpload",
  "commitArtifactUpload",
  "getArtifact",
  "deleteArtifact",
  "getCollection",
  "updateCollection",
  "deleteCollection",
  "addCollectionMembers",
  "removeCollectionMembers",
  "reorderCollection",
  "publishResource",
];
const namingACollection = new Set([
  "getCollection",
  "updateCollection",
  "deleteCollection",
  "addCollectionMembers",
  "removeCollectionMembers",
  "reorderCollection",
]);
const namingAnUpload = new Set(["appendArtifactUpload", "commitArtifactUpload"]);
const namingAnArtifact = new Set(["getArtifact", "deleteArtifact"]);
const namingAHandoff = new Set(["getHandoff", "acceptHandoff", "completeHandoff", "cancelHandoff", "reviewHandoff"]);
const namingASession = new Set([
  "getSession",
  "appendSessionEvents",
  "readSessionEvents",
  "endSession",
  "reviewSessionEvent",
]);
const namingAMemory = new Set(["putMemory", "getMemory", "listMemoryVersions", "deleteMemory"]);
const listings = [
  "listEntries",
  "searchFullText",
  "searchSemantic",
  "searchHybrid",
  "listThreads",
  "getStatistics",
  "listGrants",
  "startHere",
  "listReviewQueue",
  "getAuditLog",
  "listApiKeys",
  "listMemories",
  "listHandoffs",
  "listSessions",
  "listArtifacts",
  "listCollections",
  "listPublications",
  "searchGrep",
  "searchDeep",
  "searchItems",
  "answerQuestion",
  "whoami",
];
/** Batch operations report a refused item in their 200 answer rather than failing whole. */
const reportsItemFailures = new Set(["deleteEntries"]);

for (const backend of hubBackends)
  describe(`REST API: planted neighbours for every operation (${backend.name})`, () => {
    const keys = writeKeysFile([
      { name: "alice", tenant: "acme", subject: "alice", groups: [], scopes: readWrite },
      { name: "ops", tenant: "acme", subject: "ops", groups: [], scopes: everyScope },
      // A neighbour in the same tenant: everything but context:admin (which reads every entry of its tenant, by design).
      { name: "bob", tenant: "acme", subject: "bob", groups: [], scopes: [...readWrite, "context:review"] },
      { name: "reader", tenant: "acme", subject: "reader", groups: [], scopes: ["context:read"] },
      // Another tenant, with every scope and the very subject name of the victim.
      { name: "eve", tenant: "globex", subject: "alice", groups: [], scopes: everyScope },
    ]);
    let keyed: KeyedHub;
    let base: string;
    let operations: { operationId: string; scope: string }[];
    let victim: string;
    let victimsKey: string;
    /** Alice's private memory's key. */
    const victimMemory = "vault/zebrafalcon-plan";
    /** The entry, memory or key an operation names in the victim's place. */
    let victimHandoff: string;
    let victimSession: string;
    let victimUpload: string;
    let victimCollection: string;
    const victimFile = `The ${secretWord} vault map.`;
    const victimOf = (operationId: string) => {
      if (namingAnArtifact.has(operationId)) return sha256Of(victimFile);
      if (namingAnUpload.has(operationId)) return victimUpload;
      if (namingAMemory.has(operationId)) return victimMemory;
      if (namingAHandoff.has(operationId)) return victimHandoff;
      if (namingASession.has(operationId)) return victimSession;
      if (namingACollection.has(operationId)) return victimCollection;
      return operationId === "revokeApiKey" ? victimsKey : victim;
    };
    const callers: Record<string, RestCaller> = {};

    const call = (caller: RestCaller, operationId: string, id: string): Promise<RestAnswer> => {
      const [method, path, request] = calls[operationId]!(id);
      return caller(method, path, request);
    };

    before(async () => {
      const clients: Record<string, Client> = {};
      // Every operation is called without a credential: more refused logins than the default burst allows from one address.
      keyed = await startKeyedHub(backend, keys, clients, {
        CONTEXT_HUB_KEY_CACHE_MS: "0",
        CONTEXT_HUB_RATE_AUTH_FAILURES_BURST: "1000",
      });
      base = originOf(keyed.hub.url);
      for (const name of Object.keys(keys.principals)) callers[name] = restCaller(base, keys.principals[name]!.key);
      const document = (await restCaller(base)("GET", "/openapi.json")).json as {
        paths: Record<string, Record<string, { operationId: string; "x-context-hub-scope": string }>>;
      };
      operations = Object.values(document.paths).flatMap((methods) =>
        Object.values(methods).map((operation) => ({
          operationId: operation.operationId,
          scope: operation["x-context-hub-scope"],
        })),
      );
      // The victim: alice's private agent note (unverified, so a review queue could show it), changed once.
      const stored = await callers.alice!("POST", "/entries", {
        body: { thread_id: thread, source: "agent", text: `The ${secretWord} launch codes are kept in the vault.` },
      });
      assert.equal(stored.status, 201, stored.text);
      victim = (stored.json as Json).context_id as string;
      assert.equal((await callers.alice!("PATCH", `/entries/${victim}`, { body: { tags: ["vault"] } })).status, 200);
      const memory = await callers.alice!("PUT", `/memories/${encodeURIComponent(victimMemory)}`, {
        body: { value: `The ${secretWord} plan.`, visibility: "private" },
      });
      assert.equal(memory.status, 200, memory.text);
      // A handoff from alice to carol, and alice's session: neither is bob's or eve's to see.
      const handoff = await callers.alice!("POST", "/handoffs", {
        body: { to_subject: "carol", title: `The ${secretWord} handover`, summary: "Open the vault at dawn." },
      });
      assert.equal(handoff.status, 201, handoff.text);
      victimHandoff = ((handoff.json as Json).handoff as Json).id as string;
      const session = await callers.alice!("POST", "/sessions", {
        body: { surface: "ci", agent: `${secretWord}-agent` },
      });
      assert.equal(session.status, 201, session.text);
      victimSession = ((session.json as Json).session as Json).id as string;
      // Alice's private file, and an upload she began and has not committed.
      const file = await callers.alice!("POST", "/artifacts", {
        body: { data: base64(victimFile), media_type: "text/plain", filename: "vault.txt", visibility: "private" },
      });
      assert.equal(file.status, 200, file.text);
      const upload = await callers.alice!("POST", "/artifact-uploads", {
        body: { sha256: sha256Of("wxyz"), size: 4, media_type: "text/plain", filename: "part.txt" },
      });
      assert.equal(upload.status, 200, upload.text);
      victimUpload = ((upload.json as Json).upload as Json).upload_id as string;
      // Alice's private collection, holding the victim entry.
      const shelf = await callers.alice!("POST", "/collections", { body: { name: `The ${secretWord} shelf` } });
      assert.equal(shelf.status, 201, shelf.text);
      victimCollection = ((shelf.json as Json).collection as Json).collection_id as string;
      const added = await callers.alice!("POST", `/collections/${victimCollection}/members`, {
        body: { context_ids: [victim] },
      });
      assert.equal(added.status, 200, added.text);
      // Alice's URI for the victim: hers alone.
      const published = await callers.alice!("PUT", "/publications", {
        body: { uri: `docs://${secretWord}/vault`, id: victim },
      });
      assert.equal(published.status, 200, published.text);
      const key = await callers.ops!("POST", "/api-keys", { body: { subject: "ci", scopes: ["context:read"] } });
      assert.equal(key.status, 201, key.text);
      victimsKey = (key.json as Json).id as string;
    });
    after(async () => {
      await keyed?.close();
      keys.dispose();
    });

    test("every served operation has a planted-neighbour check", () => {
      assert.deepEqual(operations.map((operation) => operation.operationId).sort(), Object.keys(calls).sort());
    });

    test("without a credential every operation answers 401 with a Bearer challenge", async () => {
      const anonymous = restCaller(base);
      for (const { operationId } of operations) {
        const answer = await call(anonymous, operationId, victim);
        assert.equal(answer.status, 401, operationId);
        assert.equal(answer.headers.get("content-type")?.split(";")[0], "application/problem+json");
        assert.equal((answer.json as Json).code, "UNAUTHENTICATED");
        assert.match(answer.headers.get("www-authenticate") ?? "", /^Bearer/);
      }
      const badKey = restCaller(base, "chk_" + "y".repeat(43));
      assert.equal((await call(badKey, "listThreads", "")).status, 401);
    });

    test("a read-only key cannot write, review or administer anything", async () => {
      const writes = operations.filter((operation) => operation.scope !== "context:read");
      assert.ok(writes.length >= 12);
      for (const { operationId, scope } of writes) {
        const answer = await call(callers.reader!, operationId, victimOf(operationId));
        assert.equal(answer.status, 403, `${operationId}: ${answer.text}`);
        const problem = answer.json as Json;
        assert.equal(problem.code, "PERMISSION_DENIED");
        assert.match(problem.detail as string, new RegExp(`needs scope ${scope}`));
      }
    });

    test("another principal's private entry answers byte for byte as a missing one", async () => {
      for (const caller of ["bob", "eve"]) {
        for (const operationId of namingAnEntry) {
          // Eve's subject is alice's, so a put under owner "alice" is her own memory in her own tenant, rightly stored.
          if (caller === "eve" && operationId === "putMemory") continue;
          const hidden = await call(callers[caller]!, operationId, victimOf(operationId));
          const missing = await call(
            callers[caller]!,
            operationId,
            namingAnArtifact.has(operationId) ? missingSha : missingId,
          );
          const label = `${caller} ${operationId}`;
          if (reportsItemFailures.has(operationId))
            assert.equal(((hidden.json as Json).failed as unknown[]).length, 1, `${label} must fail: ${hidden.text}`);
          else assert.ok(hidden.status >= 400, `${label} must fail: ${hidden.text}`);
          assert.equal(hidden.status, missing.status, label);
          assert.equal(hidden.headers.get("content-type"), missing.headers.get("content-type"), label);
          assert.equal(hidden.headers.get("etag"), null, label);
          assert.equal(
            hidden.text.replaceAll(victimOf(operationId), "<id>"),
            missing.text.replaceAll(missingId, "<id>").replaceAll(missingSha, "<id>"),
            label,
          );
          if (
            ["getEntry", "listVersions", "getVersion", "getMemory", "getHandoff", "getSession", "getArtifact"].includes(
              operationId,
            )
          )
            assert.equal(hidden.status, 404, label);
        }
      }
      // Nothing was changed, shared, reviewed or deleted by any of it.
      const entry = await callers.alice!("GET", `/entries/${victim}`, { query: { include_quarantined: true } });
      assert.equal(entry.status, 200);
      const view = entry.json as Json;
      assert.equal(view.version, 2);
      assert.deepEqual(view.tags, ["vault"]);
      assert.equal(view.visibility, "private");
      assert.equal(view.trust_state, "unverified");
      const memory = await callers.alice!("GET", `/memories/${encodeURIComponent(victimMemory)}`);
      assert.equal(((memory.json as Json).memory as Json).text, `The ${secretWord} plan.`);
      assert.equal(((memory.json as Json).memory as Json).version, 1);
      const handoff = await callers.alice!("GET", `/handoffs/${victimHandoff}`);
      assert.equal(((handoff.json as Json).handoff as Json).version, 1);
      const map = await callers.alice!("GET", `/artifacts/${sha256Of(victimFile)}`);
      assert.equal(map.status, 200, "alice's file is still there");
      const session = await callers.alice!("GET", `/sessions/${victimSession}`);
      assert.equal(((session.json as Json).session as Json).status, "open");
      const shelf = (await callers.alice!("GET", `/collections/${victimCollection}`)).json as Json;
      assert.deepEqual(
        [(shelf.collection as Json).name, (shelf.collection as Json).version, shelf.count],
        [`The ${secretWord} shelf`, 1, 1],
      );
      const published = (await callers.alice!("GET", "/publications")).json as { publications: Json[] };
      assert.deepEqual(
        published.publications.map((publication) => [publication.uri, publication.id]),
        [[`docs://${secretWord}/vault`, victim]],
        "no neighbour published under alice's name or took her URI",
      );
    });

    test("a neighbour's unpublish of alice's URI answers as a URI it never published, and hers stays", async () => {
      for (const caller of ["bob", "eve"]) {
        const hidden = await call(callers[caller]!, "unpublishResource", "");
        const never = await callers[caller]!("POST", "/publications/remove", {
          body: { uri: `docs://${secretWord}/never` },
        });
        assert.equal(hidden.status, 404, `${caller}: ${hidden.text}`);
        assert.equal(hidden.text.replaceAll("vault", "<uri>"), never.text.replaceAll("never", "<uri>"), caller);
      }
      const published = (await callers.alice!("GET", "/publications")).json as { count: number };
      assert.equal(published.count, 1);
    });

    test("another tenant's API key answers as a missing one and stays active", async () => {
      const hidden = await call(callers.eve!, "revokeApiKey", victimsKey);
      const missing = await call(callers.eve!, "revokeApiKey", missingId);
      assert.equal(hidden.status, 404);
      assert.equal(hidden.text.replaceAll(victimsKey, "<id>"), missing.text.replaceAll(missingId, "<id>"));
      const listed = (await call(callers.ops!, "listApiKeys", "")).json as { keys: Json[] };
      assert.equal(listed.keys.find((key) => key.id === victimsKey)?.revoked_at, null);
    });

    test("listings, searches, counts, queues, logs and key lists show a neighbour nothing", async () => {
      for (const caller of ["eve", "bob"]) {
        const scopes = keys.principals[caller]!.scopes;
        for (const operationId of listings) {
          const needed = operations.find((operation) => operation.operationId === operationId)!.scope;
          if (!scopes.includes(needed)) continue;
          const answer = await call(callers[caller]!, operationId, "");
          const label = `${caller} ${operationId}`;
          assert.equal(answer.status, 200, `${label}: ${answer.text}`);
          assert.ok(!answer.text.includes(victim), `${label} shows the hidden entry's id`);
          assert.ok(!answer.text.includes(secretWord), `${label} shows the hidden entry's text`);
          if (caller === "eve") {
            assert.ok(!answer.text.includes(victimsKey), `${label} shows another tenant's key`);
            // start_here names the namespace it was asked about (the neighbour's thread); nothing else may.
            if (operationId !== "startHere")
              assert.ok(!answer.text.includes(thread), `${label} shows another tenant's thread`);
          }
        }
        const statistics = (await call(callers[caller]!, "getStatistics", "")).json as Json;
        assert.equal(statistics.entries, 0, `${caller} counts no entry of the neighbour`);
      }
    });
  });
