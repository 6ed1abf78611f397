import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readLiveRuntime, runtimeFilePath, writeRuntimeFile } from "./runtime-file.js";

test(
  "the runtime file is readable and writable by its user only, even over one an earlier start left open",
  { skip: process.platform === "win32" ? "POSIX permission bits only" : false },
  (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), "context-hub-runtime-"));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    const info = {
      pid: process.pid,
      storeAddress: "unix:/tmp/context-hub-x/store.sock",
      url: "http://127.0.0.1:8080/mcp",
    };
    writeRuntimeFile(dataDir, info);
    assert.equal(statSync(runtimeFilePath(dataDir)).mode & 0o777, 0o600);

    writeFileSync(runtimeFilePath(dataDir), "{}");
    chmodSync(runtimeFilePath(dataDir), 0o666);
    writeRuntimeFile(dataDir, info);
    assert.equal(statSync(runtimeFilePath(dataDir)).mode & 0o777, 0o600);
    assert.deepEqual(readLiveRuntime(dataDir), info);
  },
);
