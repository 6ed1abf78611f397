// Workflow-memory writes beside entry writes, over MCP on the embedded default (`context-hub start`): put_memory and
// append_session_events against store_context, each from 16 concurrent clients, in one run. The three tools take turns
// in rounds (store_context, put_memory, append_session_events, then again), so a change in the machine's load falls
// on all three alike; each tool's figures are p50/p95 latency and throughput over all its rounds.
//
// Usage: node bench/workflow-writes.js [--ops 300] [--rounds 3] [--clients 16] [--json file]
// --ops is the calls per tool per round, spread over the clients. store_context writes a 1 KB note (embedded and
// summarised before it commits); put_memory writes a 1 KB value under a key of its own (a new memory, then new
// revisions as keys repeat across rounds); append_session_events appends one 1 KB event to the client's own session.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { sizedNote } from "./retrieval-data.js";

const { values } = parseArgs({
  options: {
    ops: { type: "string", default: "300" },
    rounds: { type: "string", default: "3" },
    clients: { type: "string", default: "16" },
    json: { type: "string" },
  },
});
const ops = Number(values.ops);
const rounds = Number(values.rounds);
const clientCount = Number(values.clients);
const bin = fileURLToPath(new URL("../bin/context-hub.js", import.meta.url));
const log = (message) => process.stderr.write(`${message}\n`);

function startServer(dataDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "start", "--port", "0", "--data-dir", dataDir], {
      env: { ...process.env, LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      const match = /ready in [\d.]+s: (http:\/\/\S+\/mcp)/.exec(output);
      if (match) resolve({ child, url: match[1] });
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
}

async function call(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent;
}

const quantile = (samples, q) =>
  [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(q * samples.length))];
const round2 = (value) => Number(value.toFixed(2));

const root = mkdtempSync(join(tmpdir(), "context-hub-bench-workflow-"));
const server = await startServer(join(root, "data"));
try {
  const clients = [];
  for (let index = 0; index < clientCount; index++) {
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    clients.push(client);
  }
  const sessions = [];
  for (const [index, client] of clients.entries())
    sessions.push(
      (await call(client, "start_session", { surface: "bench", agent: `agent-${index}`, namespace: "bench" })).session
        .id,
    );

  const calls = {
    store_context: (client, index, op) =>
      call(client, "store_context", {
        thread_id: `bench-${index}`,
        source: "agent",
        text: sizedNote(op * clientCount + index, 1024),
      }),
    put_memory: (client, index, op) =>
      call(client, "put_memory", {
        namespace: "bench",
        key: `client-${index}/note-${op % 50}`,
        value: sizedNote(op, 1024),
      }),
    append_session_events: (client, index, op) =>
      call(client, "append_session_events", {
        session_id: sessions[index],
        events: [{ kind: "note", payload: sizedNote(op, 1024), idempotency_key: `e-${op}` }],
      }),
  };
  const samples = Object.fromEntries(Object.keys(calls).map((name) => [name, { latencies: [], seconds: 0, calls: 0 }]));
  const offsets = new Map(Object.keys(calls).map((name) => [name, 0]));
  // Warm-up: a few calls of each, so first-use costs (schema compilation, statement preparation) are not measured.
  for (const run of Object.values(calls))
    for (const [index, client] of clients.slice(0, 4).entries()) await run(client, index, 1_000_000 + index);
  for (let turn = 0; turn < rounds; turn++) {
    for (const [name, run] of Object.entries(calls)) {
      const base = offsets.get(name);
      offsets.set(name, base + ops);
      let next = 0;
      const started = performance.now();
      await Promise.all(
        clients.map(async (client, index) => {
          for (let op = next++; op < ops; op = next++) {
            const began = performance.now();
            await run(client, index, base + op);
            samples[name].latencies.push(performance.now() - began);
          }
        }),
      );
      samples[name].seconds += (performance.now() - started) / 1000;
      samples[name].calls += ops;
      log(`round ${turn + 1}: ${name} ${(ops / ((performance.now() - started) / 1000)).toFixed(1)} calls/s`);
    }
  }
  const result = {
    clients: clientCount,
    ops_per_round: ops,
    rounds,
    tools: Object.fromEntries(
      Object.entries(samples).map(([name, sample]) => [
        name,
        {
          p50_ms: round2(quantile(sample.latencies, 0.5)),
          p95_ms: round2(quantile(sample.latencies, 0.95)),
          calls_per_second: round2(sample.calls / sample.seconds),
        },
      ]),
    ),
    load: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
  };
  console.log(JSON.stringify(result, null, 2));
  if (values.json !== undefined) writeFileSync(values.json, `${JSON.stringify(result, null, 2)}\n`);
  for (const client of clients) await client.close();
} finally {
  server.child.kill("SIGTERM");
  await new Promise((resolve) => server.child.once("exit", resolve));
  rmSync(root, { recursive: true, force: true });
}
