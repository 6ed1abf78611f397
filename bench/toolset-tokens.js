// How many tokens each toolset's tool list costs a client: `context-hub start` in its own process (auth off, so the
// local user sees every tool), one `tools/list` per toolset through `/mcp?toolsets=<name>` on both MCP generations,
// each counted with js-tiktoken's cl100k_base encoding (the tokenizer ships its ranks; nothing is fetched).
// Two counts per list: the whole `tools` array as the server sends it (names, titles, descriptions, input and output
// schemas, annotations), and the part a client typically hands its model (name, description, input schema).
// Token counts depend only on the tool definitions, not on the machine or its load.
//
// Usage: node bench/toolset-tokens.js [--json]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Tiktoken } from "js-tiktoken/lite";
import cl100kBase from "js-tiktoken/ranks/cl100k_base";
import { toolsetNames, toolsets } from "@context-hub/gateway";
import { startServer } from "./lib/server.js";

const { values } = parseArgs({ options: { json: { type: "boolean", default: false } } });
const encoder = new Tiktoken(cl100kBase);
const tokens = (value) => encoder.encode(JSON.stringify(value)).length;

const modernMeta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** The `tools` of one tools/list through /mcp?toolsets=<choice>, as the 2025 or the 2026-07-28 revision answers it. */
async function listTools(url, choice, modern) {
  const response = await fetch(`${url}?toolsets=${encodeURIComponent(choice)}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(modern ? { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: modern ? { _meta: modernMeta } : {} }),
  });
  const body = await response.json();
  if (response.status !== 200 || body.result === undefined)
    throw new Error(`tools/list for ${choice} failed: ${response.status} ${JSON.stringify(body)}`);
  return body.result.tools;
}

/** What a client typically passes its model of a tool list: name, description and input schema of each tool. */
const modelFacing = (tools) =>
  tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }));

const dataDir = mkdtempSync(join(tmpdir(), "context-hub-toolset-tokens-"));
const server = await startServer({ dataDir, env: { CONTEXT_HUB_AUTH: "none", CONTEXT_HUB_TOOLSETS: "all" } });
const rows = [];
try {
  for (const choice of [...toolsetNames, "all"]) {
    const legacy = await listTools(server.url, choice, false);
    const modern = await listTools(server.url, choice, true);
    rows.push({
      toolset: choice,
      tools: legacy.length,
      listTokens2025: tokens(legacy),
      listTokens2026: tokens(modern),
      modelTokens: tokens(modelFacing(legacy)),
      summary: choice === "all" ? "Every tool." : toolsets[choice].summary,
    });
  }
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

if (values.json) {
  console.log(JSON.stringify(rows, null, 2));
} else {
  console.log("Tokens of each toolset's tool list (js-tiktoken 1.0.21, cl100k_base):\n");
  console.log("| toolset | tools | tools/list, 2025 | tools/list, 2026-07-28 | name + description + input schema |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const row of rows)
    console.log(
      `| ${row.toolset} | ${row.tools} | ${row.listTokens2025} | ${row.listTokens2026} | ${row.modelTokens} |`,
    );
}
