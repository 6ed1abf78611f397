/** Artifacts over the store's ArtifactsService: content addressing, deduplication, ranges, chunked uploads, limits and deletes. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { expectError, newTenant, principal, startTestStore, type StoreSuiteContext } from "./store-fixtures.js";
import { artifactFootprint, putFile, randomFile, readWhole, sha256Of } from "./store-artifacts-fixtures.js";

const chunk = 256 * 1024;

export function defineArtifactTests(context: StoreSuiteContext): void {
  describe("artifacts", () => {
    test("a file is stored once per tenant however often it is put, in 256 KiB chunks, and read back by any range", async () => {
      const { client, db } = context;
      const tenant = newTenant("artifacts");
      const alice = principal(tenant, "alice");
      const file = randomFile(2 * chunk + 1234);
      const first = await putFile(client, alice, file.data, { mediaType: "Application/PDF", filename: "plan.pdf" });
      assert.deepEqual(
        [first.sha256, first.size, first.mediaType, first.filename, first.owner, first.namespace, first.visibility],
        [file.sha256, file.data.byteLength, "application/pdf", "plan.pdf", "alice", "alice", "shared"],
      );
      await putFile(client, alice, file.data, { namespace: "proj", filename: "copy.pdf" });
      await putFile(client, principal(tenant, "bob"), file.data, { filename: "bobs.pdf" });
      const footprint = await artifactFootprint(db, tenant);
      assert.deepEqual([footprint.references, footprint.blobs, footprint.chunks], [3, 1, 3]);

      assert.ok(
        (await readWhole(client, alice, file.sha256, 100_000)).equals(file.data),
        "read in 100,000-byte ranges",
      );
      for (const [offset, length] of [
        [0, 1],
        [chunk - 1, 2],
        [chunk, chunk],
        [2 * chunk + 1000, 0],
        [17, 2 * chunk],
      ] as const) {
        const reply = await client.readArtifact({
          principal: alice,
          selector: { sha256: file.sha256 },
          offset,
          length,
        });
        const end = length === 0 ? file.data.byteLength : Math.min(offset + length, file.data.byteLength);
        assert.ok(Buffer.from(reply.data).equals(file.data.subarray(offset, end)), `range ${offset}+${length}`);
      }
      await expectError(
        client.readArtifact({ principal: alice, selector: { sha256: file.sha256 }, offset: file.data.byteLength }),
        "INVALID_ARGUMENT",
        new RegExp(
          `offset ${file.data.byteLength} is past the end of artifact .* which is ${file.data.byteLength} bytes`,
        ),
      );
      const selected = await client.getArtifact({
        principal: alice,
        selector: { sha256: file.sha256, namespace: "proj" },
      });
      assert.equal(selected.artifact?.filename, "copy.pdf");

      const empty = await putFile(client, alice, new Uint8Array(0));
      assert.equal(empty.sha256, sha256Of(new Uint8Array(0)));
      const read = await client.readArtifact({ principal: alice, selector: { sha256: empty.sha256 } });
      assert.equal(read.data.byteLength, 0);
    });

    test("a declared hash the bytes do not have, bad descriptions and bad ranges are refused and store nothing", async () => {
      const { client, db } = context;
      const tenant = newTenant("artifacts-bad");
      const alice = principal(tenant, "alice");
      const file = randomFile(1000);
      const before = await artifactFootprint(db, tenant);
      const wrong = "0".repeat(64);
      await expectError(
        client.putArtifact({ principal: alice, data: file.data, sha256: wrong }),
        "INVALID_ARGUMENT",
        new RegExp(`the bytes hash to ${file.sha256}, not the declared sha256 ${wrong}; nothing was stored`),
      );
      const bad = [
        [{ mediaType: "image/svg+xml; charset=utf-8" }, /media_type must be a type\/subtype/],
        [{ filename: "../etc/passwd" }, /filename must be a bare name/],
        [{ visibility: "public" }, /visibility must be "private", "shared" or "tenant"/],
        [{ namespace: "x".repeat(300) }, /namespace must be 1 to 256 characters/],
      ] as const;
      for (const [description, message] of bad)
        await expectError(
          client.putArtifact({ principal: alice, description, data: file.data }),
          "INVALID_ARGUMENT",
          message,
        );
      await expectError(
        client.putArtifact({ principal: alice, data: file.data, sha256: "abc" }),
        "INVALID_ARGUMENT",
        /sha256 must be a SHA-256 as 64 hex digits/,
      );
      assert.deepEqual(await artifactFootprint(db, tenant), before);
      await putFile(client, alice, file.data);
      await expectError(
        client.readArtifact({ principal: alice, selector: { sha256: file.sha256 }, length: 5 * 1024 * 1024 }),
        "INVALID_ARGUMENT",
        /length must be 0 to 4194304 bytes/,
      );
      await expectError(
        client.getArtifact({ principal: alice, selector: { sha256: "not-a-hash" } }),
        "INVALID_ARGUMENT",
        /sha256 must be a SHA-256/,
      );
    });

    test("a chunked upload takes parts at the offset it continues at, accepts a part resent unchanged, and commits verified bytes", async () => {
      const { client, db } = context;
      const tenant = newTenant("artifacts-upload");
      const alice = principal(tenant, "alice");
      const file = randomFile(3 * chunk + 77);
      const parts = [file.data.subarray(0, 300_000), file.data.subarray(300_000, 700_000), file.data.subarray(700_000)];
      const begun = await client.beginArtifactUpload({
        principal: alice,
        description: { mediaType: "application/zip", filename: "build.zip", namespace: "proj" },
        sha256: file.sha256,
        size: file.data.byteLength,
      });
      const uploadId = begun.upload!.id;
      const append = (offset: number, data: Uint8Array) =>
        client.appendArtifactUpload({ principal: alice, uploadId, offset, data });
      assert.equal((await append(0, parts[0]!)).upload?.received, 300_000);
      await expectError(
        append(700_000, parts[2]!),
        "INVALID_ARGUMENT",
        /offset 700000 is past the 300000 bytes received so far/,
      );
      const resent = await append(0, parts[0]!);
      assert.deepEqual([resent.duplicate, resent.upload?.received], [true, 300_000], "a resent part is accepted once");
      await expectError(
        append(0, randomFile(300_000).data),
        "INVALID_ARGUMENT",
        /offset 0 was already written with other bytes/,
      );
      await expectError(
        client.commitArtifactUpload({ principal: alice, uploadId }),
        "INVALID_ARGUMENT",
        /has 300000 of its declared \d+ bytes/,
      );
      await expectError(
        append(300_000, Buffer.alloc(file.data.byteLength)),
        "INVALID_ARGUMENT",
        /would end past the declared size/,
      );
      await append(300_000, parts[1]!);
      await append(700_000, parts[2]!);
      const before = await artifactFootprint(db, tenant);
      assert.deepEqual(
        [before.uploads, before.parts, before.references],
        [1, 3, 0],
        "nothing is an artifact before the commit",
      );
      const committed = await client.commitArtifactUpload({ principal: alice, uploadId });
      assert.deepEqual(
        [committed.artifact?.sha256, committed.artifact?.namespace, committed.artifact?.filename],
        [file.sha256, "proj", "build.zip"],
      );
      assert.ok((await readWhole(client, alice, file.sha256, 1_000_000)).equals(file.data));
      const after = await artifactFootprint(db, tenant);
      assert.deepEqual([after.uploads, after.parts, after.references, after.chunks], [0, 0, 1, 4]);
      await expectError(append(0, parts[0]!), "ENTRY_NOT_FOUND", /no upload .* in progress that you started/);
      await expectError(client.commitArtifactUpload({ principal: alice, uploadId }), "ENTRY_NOT_FOUND");
    });

    test("a commit whose bytes do not hash to the declaration stores nothing and discards the upload", async () => {
      const { client, db } = context;
      const tenant = newTenant("artifacts-mismatch");
      const alice = principal(tenant, "alice");
      const file = randomFile(chunk + 5);
      const declared = randomFile(10).sha256;
      const begun = await client.beginArtifactUpload({
        principal: alice,
        sha256: declared,
        size: file.data.byteLength,
      });
      const uploadId = begun.upload!.id;
      await client.appendArtifactUpload({ principal: alice, uploadId, offset: 0, data: file.data });
      await expectError(
        client.commitArtifactUpload({ principal: alice, uploadId }),
        "INVALID_ARGUMENT",
        new RegExp(
          `hash to ${file.sha256}, not the declared sha256 ${declared}; nothing was stored and the upload is discarded`,
        ),
      );
      const footprint = await artifactFootprint(db, tenant);
      assert.deepEqual(
        [footprint.references, footprint.blobs, footprint.chunks, footprint.uploads, footprint.parts],
        [0, 0, 0, 0, 0],
      );
      await expectError(client.getArtifact({ principal: alice, selector: { sha256: file.sha256 } }), "ENTRY_NOT_FOUND");
      await expectError(
        client.appendArtifactUpload({ principal: alice, uploadId: "not-an-id", offset: 0, data: file.data }),
        "ENTRY_NOT_FOUND",
        /no upload "not-an-id" in progress that you started/,
      );
    });

    test("the size limit and the upload lifetime are the store's configuration", async () => {
      const { db, options } = context;
      let now = new Date("2026-12-01T10:00:00Z");
      const store = await startTestStore(options, db, {
        env: { STORE_ARTIFACT_MAX_BYTES: "5000", STORE_ARTIFACT_UPLOAD_TTL_SECONDS: "60" },
        now: () => now,
      });
      try {
        const tenant = newTenant("artifacts-limits");
        const alice = principal(tenant, "alice");
        const big = randomFile(5001);
        await expectError(
          store.client.putArtifact({ principal: alice, data: big.data }),
          "INVALID_ARGUMENT",
          /the file is 5001 bytes; artifacts are at most 5000 bytes/,
        );
        await expectError(
          store.client.beginArtifactUpload({ principal: alice, sha256: big.sha256, size: 5001 }),
          "INVALID_ARGUMENT",
          /the file is 5001 bytes; artifacts are at most 5000 bytes/,
        );
        const small = randomFile(4000);
        const begun = await store.client.beginArtifactUpload({ principal: alice, sha256: small.sha256, size: 4000 });
        const uploadId = begun.upload!.id;
        await store.client.appendArtifactUpload({
          principal: alice,
          uploadId,
          offset: 0,
          data: small.data.subarray(0, 10),
        });
        now = new Date(now.getTime() + 61_000);
        await expectError(
          store.client.appendArtifactUpload({ principal: alice, uploadId, offset: 10, data: small.data.subarray(10) }),
          "ENTRY_NOT_FOUND",
          /no upload .* in progress that you started/,
        );
        await store.client.beginArtifactUpload({ principal: alice, sha256: small.sha256, size: 4000 });
        const footprint = await artifactFootprint(db, tenant);
        assert.deepEqual(
          [footprint.uploads, footprint.parts, footprint.references],
          [1, 0, 0],
          "the expired upload was swept",
        );
        for (let count = 1; count < 16; count++)
          await store.client.beginArtifactUpload({ principal: alice, sha256: small.sha256, size: 4000 });
        await expectError(
          store.client.beginArtifactUpload({ principal: alice, sha256: small.sha256, size: 4000 }),
          "INVALID_ARGUMENT",
          /you have 16 uploads in progress, the most one principal may/,
        );
        await store.client.beginArtifactUpload({
          principal: principal(tenant, "bob"),
          sha256: small.sha256,
          size: 4000,
        });
      } finally {
        await store.close();
      }
    });

    test("a delete removes one reference; the bytes go with the last one", async () => {
      const { client, db } = context;
      const tenant = newTenant("artifacts-delete");
      const alice = principal(tenant, "alice");
      const file = randomFile(chunk + 1);
      await putFile(client, alice, file.data);
      await putFile(client, alice, file.data, { namespace: "proj" });
      const first = await client.deleteArtifact({ principal: alice, sha256: file.sha256 });
      assert.deepEqual([first.artifact?.namespace, first.bytesRemoved], ["alice", false]);
      assert.ok(
        (await readWhole(client, alice, file.sha256, chunk * 4)).equals(file.data),
        "still readable through proj",
      );
      await expectError(client.deleteArtifact({ principal: alice, sha256: file.sha256 }), "ENTRY_NOT_FOUND");
      const last = await client.deleteArtifact({ principal: alice, sha256: file.sha256, namespace: "proj" });
      assert.equal(last.bytesRemoved, true);
      const footprint = await artifactFootprint(db, tenant);
      assert.deepEqual([footprint.references, footprint.blobs, footprint.chunks], [0, 0, 0]);
      await expectError(client.getArtifact({ principal: alice, selector: { sha256: file.sha256 } }), "ENTRY_NOT_FOUND");
    });

    test("concurrent puts of one new file store its bytes once, and a delete racing puts never leaves a reference without bytes", async () => {
      const { client, db } = context;
      const tenant = newTenant("artifacts-race");
      const file = randomFile(3 * chunk);
      const owners = Array.from({ length: 8 }, (_, index) => principal(tenant, `agent-${index}`));
      const stored = await Promise.all(owners.map((owner) => putFile(client, owner, file.data)));
      assert.deepEqual(new Set(stored.map((artifact) => artifact.sha256)), new Set([file.sha256]));
      const footprint = await artifactFootprint(db, tenant);
      assert.deepEqual([footprint.references, footprint.blobs, footprint.chunks], [8, 1, 3]);

      // Each owner deletes its reference while the next puts it again: whatever the order, bytes and references agree.
      await Promise.all(
        owners.flatMap((owner) => [
          client.deleteArtifact({ principal: owner, sha256: file.sha256 }),
          putFile(client, owner, file.data, { namespace: "again" }),
        ]),
      );
      const after = await artifactFootprint(db, tenant);
      assert.deepEqual([after.references, after.blobs, after.chunks], [8, 1, 3]);
      for (const owner of owners.slice(0, 2))
        assert.ok((await readWhole(client, owner, file.sha256, chunk * 4)).equals(file.data));
      await Promise.all(
        owners.map((owner) => client.deleteArtifact({ principal: owner, sha256: file.sha256, namespace: "again" })),
      );
      const gone = await artifactFootprint(db, tenant);
      assert.deepEqual([gone.references, gone.blobs, gone.chunks], [0, 0, 0]);
    });
  });
}
