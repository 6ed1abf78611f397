/** Who sees an artifact over the store's ArtifactsService: grants, handoff links, tenant admins and planted neighbours. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  expectError,
  expectIndistinguishable,
  principal,
  principalTrio,
  type PrincipalInit,
  type StoreSuiteContext,
} from "./store-fixtures.js";
import { admin, share } from "./store-sessions-fixtures.js";
import { artifactFootprint, putFile, randomFile } from "./store-artifacts-fixtures.js";

export function defineArtifactAccessTests(context: StoreSuiteContext): void {
  describe("who sees an artifact", () => {
    test("planted neighbours: a principal of the tenant and one of another tenant can neither read, list, delete, upload into nor infer an artifact", async () => {
      const { client, db } = context;
      const { tenantA, a1, a2, b1 } = principalTrio("artifacts", { groups: ["staff"] });
      const secret = randomFile(70_000);
      const tenantWide = randomFile(500);
      await putFile(client, a1, secret.data, { namespace: "secret-project", filename: "secret.bin" });
      await putFile(client, a1, tenantWide.data, { namespace: "secret-project", visibility: "tenant" });
      const upload = await client.beginArtifactUpload({ principal: a1, sha256: secret.sha256, size: 70_000 });
      await client.appendArtifactUpload({
        principal: a1,
        uploadId: upload.upload!.id,
        offset: 0,
        data: secret.data.subarray(0, 10),
      });
      const footprint = await artifactFootprint(db, tenantA);
      const missing = randomFile(32).sha256;
      const missingUpload = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
      for (const [label, caller] of [
        ["same tenant", a2],
        ["other tenant", b1],
        ["other tenant's admin", admin(b1.tenant!)],
      ] as const) {
        const probe = async (call: (sha256: string) => Promise<unknown>, what: string) =>
          expectIndistinguishable(call(secret.sha256), secret.sha256, call(missing), missing, `${label}: ${what}`);
        await probe((sha256) => client.getArtifact({ principal: caller, selector: { sha256 } }), "get");
        await probe((sha256) => client.readArtifact({ principal: caller, selector: { sha256 }, length: 10 }), "read");
        await probe(
          (sha256) =>
            client.readArtifact({ principal: caller, selector: { sha256, owner: "a1", namespace: "secret-project" } }),
          "read naming the owner",
        );
        await probe(
          (sha256) => client.deleteArtifact({ principal: caller, sha256, owner: "a1", namespace: "secret-project" }),
          "delete",
        );
        const uploadId = upload.upload!.id;
        await expectIndistinguishable(
          client.appendArtifactUpload({ principal: caller, uploadId, offset: 10, data: secret.data.subarray(10) }),
          uploadId,
          client.appendArtifactUpload({
            principal: caller,
            uploadId: missingUpload,
            offset: 10,
            data: secret.data.subarray(10),
          }),
          missingUpload,
          `${label}: append`,
        );
        await expectIndistinguishable(
          client.commitArtifactUpload({ principal: caller, uploadId }),
          uploadId,
          client.commitArtifactUpload({ principal: caller, uploadId: missingUpload }),
          missingUpload,
          `${label}: commit`,
        );
        // Putting the same bytes gives the caller its own reference and nothing of a1's.
        const own = await putFile(client, caller, secret.data, { filename: "mine.bin" });
        assert.deepEqual([own.owner, own.filename], [caller.subject, "mine.bin"], `${label}: put the same bytes`);
        await client.deleteArtifact({ principal: caller, sha256: secret.sha256 });
        const sameTenant = caller.tenant === tenantA;
        for (const filter of [{}, { namespace: "secret-project" }])
          assert.deepEqual(
            (await client.listArtifacts({ principal: caller, ...filter })).artifacts.map((a) => a.sha256),
            sameTenant ? [tenantWide.sha256] : [],
            `${label}: list ${JSON.stringify(filter)} shows a tenant-visible file only to its tenant`,
          );
      }
      assert.deepEqual(
        await artifactFootprint(db, tenantA),
        { ...footprint, audited: (footprint.audited as number) + 2 },
        "only a2's own put and delete were added",
      );
      const byAdmin = await client.getArtifact({ principal: admin(tenantA), selector: { sha256: secret.sha256 } });
      assert.equal(byAdmin.artifact?.owner, "a1", "the tenant's admin sees it");
    });

    test("a namespace grant and a handoff that links an artifact open it; a link to a hash its creator cannot see opens nothing", async () => {
      const { client } = context;
      const { tenantA, a1, a2 } = principalTrio("artifacts-grants", { groups: ["staff"] });
      const a3 = principal(tenantA, "a3");
      const file = randomFile(1000);
      await putFile(client, a1, file.data, { namespace: "proj", filename: "report.txt", mediaType: "text/plain" });
      const read = (caller: PrincipalInit) =>
        client.getArtifact({ principal: caller, selector: { sha256: file.sha256 } });
      await expectError(read(a2), "ENTRY_NOT_FOUND");
      await share(client, a1, "proj", "staff", false);
      assert.equal((await read(a2)).artifact?.filename, "report.txt", "a read grant on the namespace");
      await expectError(
        client.deleteArtifact({ principal: a2, sha256: file.sha256, owner: "a1", namespace: "proj" }),
        "PERMISSION_DENIED",
        /you may read artifact .* but not delete it/,
      );

      await expectError(read(a3), "ENTRY_NOT_FOUND");
      const link = { type: "artifact", ref: file.sha256 };
      await client.createHandoff({
        principal: a1,
        recipient: { kind: "subject", name: "a3" },
        title: "the report",
        summary: "read it",
        links: [link],
      });
      const reply = await client.readArtifact({ principal: a3, selector: { sha256: file.sha256 }, length: 1000 });
      assert.ok(Buffer.from(reply.data).equals(file.data), "a handoff from its owner that links it");

      // a3 knows the hash now, but a handoff a3 creates linking it reaches only a3's own references.
      const private2 = randomFile(2000);
      await putFile(client, a2, private2.data, { visibility: "private" });
      await client.createHandoff({
        principal: a3,
        recipient: { kind: "subject", name: "a3" },
        title: "self",
        summary: "try",
        links: [{ type: "artifact", ref: private2.sha256 }],
      });
      await expectError(
        client.getArtifact({ principal: a3, selector: { sha256: private2.sha256 } }),
        "ENTRY_NOT_FOUND",
        /no artifact .* that you can see/,
      );
      assert.deepEqual(
        (await client.listArtifacts({ principal: a3 })).artifacts.map((artifact) => [artifact.owner, artifact.sha256]),
        [["a1", file.sha256]],
        "a3 lists what the handoff opened, nothing else",
      );
    });
  });
}
