// How close start_here's token estimate comes to a real tokenizer: `context-hub start` in its own process (auth off),
// a namespace seeded with handoffs, pinned memories, a 30-event session and entries, then start_here at several
// budgets; each answer's text counted with js-tiktoken's cl100k_base encoding beside the gateway's estimate and
// characters / 4. Fixed prose samples in several languages are counted the same way. Counts depend only on the text,
// not on the machine or its load; the answers carry random ids and fence nonces, so theirs move by about 1 % per run.
//
// Usage: node bench/start-here-tokens.js [--json]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Tiktoken } from "js-tiktoken/lite";
import cl100kBase from "js-tiktoken/ranks/cl100k_base";
import { estimateTokens } from "@context-hub/gateway";
import { startServer } from "./lib/server.js";

const { values } = parseArgs({ options: { json: { type: "boolean", default: false } } });
const encoder = new Tiktoken(cl100kBase);
const budgets = [32_000, 8_000, 4_000, 2_000, 1_000];

const prose = (step) =>
  `Step ${step}: the integrator drifts after a day of simulated time; we switched to RK4 with a smaller step, ` +
  "reran the orbit suite, and the residuals stayed under 1e-6 except for the polar cases, which still need a look.";
const samples = {
  "English prose": Array.from({ length: 20 }, (_, step) => prose(step)).join("\n\n"),
  "German prose":
    "Die Integration driftet nach einem Tag simulierter Zeit; wir haben auf RK4 mit kleinerem Schritt umgestellt und die Residuen blieben unter 1e-6, außer bei den Polarfällen, die noch geprüft werden müssen. ".repeat(
      20,
    ),
  "French prose":
    "L'intégrateur dérive après une journée de temps simulé ; nous sommes passés à RK4 avec un pas plus petit et les résidus sont restés sous 1e-6, sauf pour les cas polaires qu'il faut encore examiner. ".repeat(
      20,
    ),
  "Russian prose":
    "Интегратор дрейфует после дня модельного времени; мы перешли на RK4 с меньшим шагом, и невязки остались ниже 1e-6, кроме полярных случаев. ".repeat(
      20,
    ),
  "Japanese prose":
    "積分器はシミュレーション時間で一日経つとずれる。RK4に切り替え、刻みを小さくした。極の場合はまだ確認が必要。".repeat(
      20,
    ),
};

const row = (text, label) => {
  const tokens = encoder.encode(text).length;
  return {
    text: label,
    cl100k: tokens,
    estimate: estimateTokens(text),
    estimateRatio: Math.round((estimateTokens(text) / tokens) * 1000) / 1000,
    quarterRatio: Math.round((Math.ceil(text.length / 4) / tokens) * 1000) / 1000,
  };
};

/** Seeds namespace "vega" for the local user: 3 handoffs to it, 4 pinned memories, a 30-event ended session, 10 entries. */
async function seed(call) {
  const { subject } = await call("whoami", {});
  for (const index of [1, 2, 3])
    await call("create_handoff", {
      to_subject: subject,
      title: `Task ${index}`,
      summary: prose(index),
      next_steps: ["check the polar cases", "update the plan"],
    });
  for (const index of [1, 2, 3, 4])
    await call("put_memory", { namespace: "vega", key: `decisions/${index}`, value: prose(index), tags: ["pinned"] });
  const { session } = await call("start_session", { surface: "cli", agent: "coder", namespace: "vega" });
  await call("append_session_events", {
    session_id: session.id,
    events: Array.from({ length: 30 }, (_, index) => ({
      kind: index % 2 ? "tool_call" : "note",
      payload: index % 2 ? { tool: "make", args: ["test", `--case=${index}`], ok: index % 3 !== 0 } : prose(index),
    })),
  });
  await call("end_session", { session_id: session.id, summary: prose(99) });
  for (let index = 0; index < 10; index += 1)
    await call("store_context", {
      thread_id: "vega",
      source: "agent",
      text: `${prose(index)}\n\n${prose(index + 100)}`,
    });
}

const dataDir = mkdtempSync(join(tmpdir(), "context-hub-start-here-tokens-"));
const server = await startServer({ dataDir, env: { CONTEXT_HUB_AUTH: "none" } });
const client = new Client({ name: "start-here-tokens", version: "0.0.0" });
const rows = [];
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  const call = async (name, args) => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
    return { ...result.structuredContent, text: result.content[0].text };
  };
  await seed(call);
  for (const max_tokens of budgets) {
    const answer = await call("start_here", { namespace: "vega", max_tokens, last_events: 30 });
    rows.push({ ...row(answer.text, `start_here, max_tokens ${max_tokens}`), usedTokens: answer.budget.used_tokens });
  }
} finally {
  await client.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
for (const [label, text] of Object.entries(samples)) rows.push(row(text, label));

if (values.json) {
  console.log(JSON.stringify(rows, null, 2));
} else {
  console.log("start_here's token estimate against cl100k_base (js-tiktoken 1.0.21):\n");
  console.log("| text | cl100k_base | estimate | estimate / cl100k | characters / 4 / cl100k |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const entry of rows)
    console.log(
      `| ${entry.text} | ${entry.cl100k} | ${entry.estimate} | ${entry.estimateRatio} | ${entry.quarterRatio} |`,
    );
}
