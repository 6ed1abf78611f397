import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const packageRoot = new URL("../../", import.meta.url);

test("test helpers are served by the ./testing subpath, not by the production entry point", async () => {
  const manifest = JSON.parse(readFileSync(fileURLToPath(new URL("package.json", packageRoot)), "utf8")) as {
    exports: Record<string, { default: string }>;
  };
  const production = (await import(new URL(manifest.exports["."]!.default, packageRoot).href)) as Record<
    string,
    unknown
  >;
  const testing = (await import(new URL(manifest.exports["./testing"]!.default, packageRoot).href)) as Record<
    string,
    unknown
  >;
  assert.equal(typeof testing.startRecordingHttpServer, "function");
  assert.equal("startRecordingHttpServer" in production, false);
  assert.equal(typeof production.createHttpProviderClient, "function", "the production helpers stay where they were");
});
