import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdioTransport } from "@modelcontextprotocol/client/stdio";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AllInOne } from "@context-hub/cli";
import { readWrite, writeKeysFile } from "../support/principals.js";
import { startGatewayOn, type TestGateway } from "./gateways.js";
import { startMemoryHub } from "../support/memory-hub.js";
import { storeConformanceFixtures } from "../support/conformance-fixtures.js";
import { failedScenarios, failureDetail, readResults } from "../support/conformance-results.js";

/**
 * Clients other than our own test helper against a running gateway: the
 * MCP conformance suite, the MCP Inspector's CLI, and `context-hub bridge`
 * driven over stdio by the SDK's stdio client.
 */

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const repository = resolve(here, "../../..");
const bin = join(repository, "bin/context-hub.js");
const require = createRequire(import.meta.url);
const conformanceCli = require.resolve("@modelcontextprotocol/conformance/dist/index.js");
const inspectorCli = require.resolve("@modelcontextprotocol/inspector-cli/build/index.js");
const baselinePath = join(repository, "test/conformance/expected-failures.json");

describe("third-party clients against a running gateway", () => {
  let hub: AllInOne;
  let keys: ReturnType<typeof writeKeysFile>;
  let secured: TestGateway;
  let work: string;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), "context-hub-clients-"));
    keys = writeKeysFile([{ name: "alice", tenant: "acme", subject: "alice", groups: ["eng"], scopes: readWrite }]);
    hub = await startMemoryHub({ CONTEXT_HUB_AUTH: "none" });
    await storeConformanceFixtures(hub.url);
    secured = await startGatewayOn(hub, { CONTEXT_HUB_AUTH: "api-key", CONTEXT_HUB_API_KEYS_FILE: keys.path });
  });
  after(async () => {
    await secured?.close();
    await hub?.close();
    keys?.dispose();
    rmSync(work, { recursive: true, force: true });
  });

  test("MCP conformance 0.1.13: only the baseline's scenarios fail, each for its stated reason", async () => {
    const baseline = (JSON.parse(readFileSync(baselinePath, "utf8")) as { server: Record<string, string> }).server;
    for (const [scenario, reason] of Object.entries(baseline))
      assert.ok(reason.trim().length >= 20, `${scenario} says why it is expected to fail`);
    const yamlPath = join(work, "expected-failures.yml");
    writeFileSync(
      yamlPath,
      `server:\n${Object.keys(baseline)
        .map((scenario) => `  - ${scenario}\n`)
        .join("")}`,
    );
    const output = join(work, "conformance");
    const outcome = await run(
      process.execPath,
      [conformanceCli, "server", "--url", hub.url, "--expected-failures", yamlPath, "-o", output],
      { cwd: work, timeout: 120_000 },
    ).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code?: number; stdout?: string }) => ({ code: error.code ?? -1, stdout: error.stdout ?? "" }),
    );
    const results = readResults(output);
    assert.ok(results.size >= 20, `the suite ran (${results.size} scenarios)`);
    const failed = failedScenarios(results);
    const unexpected = failed.filter((scenario) => !(scenario in baseline));
    const stale = Object.keys(baseline).filter((scenario) => results.has(scenario) && !failed.includes(scenario));
    assert.deepEqual(unexpected, [], `new conformance failures:\n${failureDetail(results, unexpected)}`);
    assert.deepEqual(stale, [], "these scenarios pass now: remove them from test/conformance/expected-failures.json");
    for (const scenario of [
      "server-initialize",
      "ping",
      "tools-list",
      "dns-rebinding-protection",
      "resources-read-text",
      "resources-read-binary",
      "resources-templates-read",
    ])
      assert.ok(results.has(scenario) && !failed.includes(scenario), `${scenario} passes`);
    assert.equal(outcome.code, 0, outcome.stdout.slice(-2_000));
  });

  test("the MCP Inspector CLI lists the tools and calls one, with an API key", async () => {
    // The inspector reads its own package.json relative to its working directory, so it runs from its build folder.
    const inspect = (...args: string[]) =>
      run(
        process.execPath,
        [
          inspectorCli,
          secured.url,
          "--transport",
          "http",
          "--header",
          `Authorization: Bearer ${keys.principals.alice!.key}`,
          ...args,
        ],
        {
          cwd: dirname(inspectorCli),
          timeout: 60_000,
        },
      );
    const listed = JSON.parse((await inspect("--method", "tools/list")).stdout) as { tools: { name: string }[] };
    assert.ok(
      listed.tools.some((tool) => tool.name === "store_context") && listed.tools.some((tool) => tool.name === "whoami"),
    );
    const called = JSON.parse(
      (await inspect("--method", "tools/call", "--tool-name", "whoami")).stdout,
    ) as CallToolResult;
    assert.equal(called.isError, undefined);
    const caller = called.structuredContent as { tenant: string; subject: string };
    assert.deepEqual([caller.tenant, caller.subject], ["acme", "alice"]);
    await assert.rejects(
      run(process.execPath, [inspectorCli, secured.url, "--transport", "http", "--method", "tools/list"], {
        cwd: dirname(inspectorCli),
        timeout: 60_000,
      }),
      "without the key the inspector is refused",
    );
  });

  const bridgeClient = async (token: string) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, "bridge", "--url", secured.url, "--token", token],
      stderr: "pipe",
    });
    const client = new Client({ name: "bridge-test", version: "0" });
    return { client, transport, connect: () => client.connect(transport) };
  };

  test("context-hub bridge serves the remote server over stdio: handshake, tools, a write and a read", async () => {
    const { client, connect } = await bridgeClient(keys.principals.alice!.key);
    await connect();
    try {
      assert.equal(client.getServerVersion()?.name, "context-hub");
      assert.match(client.getInstructions() ?? "", /shared memory/);
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === "store_context"));
      const stored = (await client.callTool({
        name: "store_context",
        arguments: { thread_id: "bridge", source: "user", text: "Sent through the stdio bridge." },
      })) as CallToolResult;
      const id = (stored.structuredContent as { context_id: string }).context_id;
      const fetched = (await client.callTool({ name: "fetch", arguments: { id } })) as CallToolResult;
      assert.equal(
        (fetched.structuredContent as { text: string; metadata: { owner: string } }).text,
        "Sent through the stdio bridge.",
      );
      assert.equal(
        (fetched.structuredContent as { metadata: { owner: string } }).metadata.owner,
        "alice",
        "the remote server saw the bridge's credential",
      );
    } finally {
      await client.close();
    }
  });

  test("context-hub bridge serves a 2026-07-28 stdio client without a handshake: discover, tools, a write and a read", async () => {
    const transport = new ModernStdioTransport({
      command: process.execPath,
      args: [bin, "bridge", "--url", secured.url, "--token", keys.principals.alice!.key],
      stderr: "pipe",
    });
    let sentInitialize = false;
    const send = transport.send.bind(transport);
    transport.send = (message) => {
      if ("method" in message && message.method === "initialize") sentInitialize = true;
      return send(message);
    };
    const client = new ModernClient(
      { name: "bridge-test-v2", version: "0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(transport);
    try {
      assert.deepEqual([client.getProtocolEra(), client.getNegotiatedProtocolVersion()], ["modern", "2026-07-28"]);
      assert.equal(sentInitialize, false, "no initialize crossed the bridge");
      assert.deepEqual((await client.discover()).supportedVersions.includes("2026-07-28"), true);
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === "store_context"));
      const stored = await client.callTool({
        name: "store_context",
        arguments: { thread_id: "bridge", source: "user", text: "Sent through the bridge at 2026-07-28." },
      });
      assert.equal(stored.isError, undefined, JSON.stringify(stored.content));
      const id = (stored.structuredContent as { context_id: string }).context_id;
      const fetched = await client.callTool({ name: "fetch", arguments: { id } });
      const entry = fetched.structuredContent as { text: string; metadata: { owner: string } };
      assert.deepEqual([entry.text, entry.metadata.owner], ["Sent through the bridge at 2026-07-28.", "alice"]);
    } finally {
      await client.close();
    }
  });

  test("a refused credential reaches the stdio client as an error with the server's reason", async () => {
    const { client, transport, connect } = await bridgeClient(`chk_${"n".repeat(43)}`);
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    await assert.rejects(connect(), /The API key is not valid/);
    await client.close();
    assert.doesNotMatch(stderr, /chk_n{43}/, "the bridge does not log the credential");
    assert.match(
      stderr,
      /--token shows in the process list \(ps\)[^]*CONTEXT_HUB_TOKEN/,
      "a credential on the command line draws a warning",
    );
  });

  test("bridge and smoke refuse plain http to a host that is not loopback unless --insecure, and take the key from CONTEXT_HUB_TOKEN silently", async () => {
    for (const command of ["bridge", "smoke"]) {
      const refused = await run(process.execPath, [bin, command, "--url", "http://127.attacker.example/mcp"], {
        env: { ...process.env, CONTEXT_HUB_TOKEN: "chk_x" },
      }).catch((error: { code: number; stderr: string }) => error);
      assert.equal((refused as { code: number }).code, 2, command);
      assert.match(
        (refused as { stderr: string }).stderr,
        /plain http to a host that is not loopback[^]*--insecure/,
        command,
      );
    }
    const smoke = await run(process.execPath, [bin, "smoke", "--url", secured.url], {
      env: { ...process.env, CONTEXT_HUB_TOKEN: keys.principals.alice!.key },
    });
    assert.match(smoke.stdout, /round trip ok/);
    assert.equal(smoke.stderr, "", "no warning when the key comes from the environment");
  });

  test("the bridge exits cleanly when its client closes stdin, and explains its usage", async () => {
    const child = spawn(
      process.execPath,
      [bin, "bridge", "--url", secured.url, "--token", keys.principals.alice!.key],
      { stdio: ["pipe", "pipe", "pipe"] },
    );
    child.stdin.end();
    const [code] = (await once(child, "exit")) as [number | null];
    assert.equal(code, 0);
    const usage = await run(process.execPath, [bin, "bridge"]).catch(
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal((usage as { code: number }).code, 2);
    assert.match((usage as { stderr: string }).stderr, /Usage: context-hub bridge --url <mcp url>/);
  });
});
