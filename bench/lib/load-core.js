// The load generator's engine, shared by bench/load.js (load and soak) and bench/faults.js: concurrent agents over real
// MCP HTTP, each bound to one principal (API key), a mix of writes and every search mode, a recorder of every call, and
// a cross-principal sweep that inspects every result for another principal's private marker and probes foreign ids and
// markers through every read tool.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { contentHash } from "@context-hub/common";

const words =
  "turbine blade fatigue crack root section inspection torque schedule bearing vibration spectrum maintenance window operator report anomaly threshold sensor calibration drift rotor gearbox lubrication".split(
    " ",
  );
const pick = (seed) => words[Math.abs(seed) % words.length];
const randomInt = (n) => Math.floor(Math.random() * n);

/** A ~1 KB note with headings, unique per (principal, index), carrying the principal's private marker twice. */
export function noteText(principal, index, revision = 0) {
  let body = `# Note ${index} r${revision} of ${principal.marker}\n\n`;
  for (let section = 0; section < 2; section++) {
    body += `## Section ${section}\n\n`;
    for (let sentence = 0; sentence < 4; sentence++)
      body += `Finding ${sentence} on ${pick(index + sentence)} ${pick(index * 3 + section)}: the ${pick(index + revision + sentence * 7)} near the ${pick(sentence * 5 + section)} was checked. `;
    body += "\n\n";
  }
  return `${body}Signed ${principal.marker}.`;
}

export async function connect(url, key) {
  const client = new Client({ name: "context-hub-load", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  return client;
}

/** Every call's outcome, with its time since the start, for latency, throughput and error-rate series. */
export function createRecorder() {
  const began = performance.now();
  const samples = [];
  const errors = new Map();
  return {
    began,
    samples,
    errors,
    now: () => (performance.now() - began) / 1000,
    record(tool, ms, ok, message) {
      samples.push({ t: (performance.now() - began) / 1000, tool, ms, ok });
      if (!ok) {
        const key = `${tool}: ${String(message)
          .split("\n")[0]
          .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "<id>")
          .slice(0, 200)}`;
        errors.set(key, (errors.get(key) ?? 0) + 1);
      }
    },
  };
}

/**
 * The sweep's judge: every result any principal receives is searched for every other principal's marker (all load
 * entries are private, so any foreign marker is a leak). Violations are kept with who saw whose marker through which tool.
 */
export function createSweep(principals) {
  const violations = [];
  let inspected = 0;
  return {
    violations,
    get inspected() {
      return inspected;
    },
    inspect(observer, tool, result) {
      inspected++;
      const whole = `${(result.content ?? []).map((part) => part.text ?? "").join("\n")}\n${JSON.stringify(result.structuredContent ?? {})}`;
      for (const owner of principals) {
        if (owner === observer || !whole.includes(owner.marker)) continue;
        violations.push({
          observer: observer.name,
          owner: owner.name,
          tool,
          at: new Date().toISOString(),
          excerpt: whole.slice(Math.max(0, whole.indexOf(owner.marker) - 200), whole.indexOf(owner.marker) + 100),
        });
      }
    },
  };
}

/**
 * The acknowledged writes, as the server acknowledged them: per entry id, its owner and the latest acknowledged
 * version with the hash of the text that version holds. Fault runs check the database against it afterwards.
 */
export function createLedger() {
  const entries = new Map();
  return {
    entries,
    acknowledge(id, owner, version, text) {
      const known = entries.get(id);
      if (known !== undefined && known.version >= version) return;
      entries.set(id, {
        id,
        owner: owner.name,
        tenant: owner.tenant,
        subject: owner.subject,
        version,
        hash: contentHash(text),
        text,
      });
    },
    ownedBy(principal) {
      return [...entries.values()].filter((entry) => entry.owner === principal.name);
    },
    foreignTo(principal) {
      return [...entries.values()].filter((entry) => entry.owner !== principal.name);
    },
  };
}

/** Default share of each operation in an agent's mix. */
export const defaultMix = {
  store_context: 30,
  update_context: 10,
  get_context_by_ids: 15,
  search_context: 9,
  fts_search_context: 9,
  semantic_search_context: 9,
  hybrid_search_context: 9,
  grep_context: 9,
};

function chooseOperation(mix) {
  const total = Object.values(mix).reduce((a, b) => a + b, 0);
  let roll = Math.random() * total;
  for (const [name, weight] of Object.entries(mix)) {
    roll -= weight;
    if (roll < 0) return name;
  }
  return "store_context";
}

/** Calls a tool, records it, passes the result through the sweep; returns the result, or undefined on failure. */
async function timedCall(context, principal, client, tool, args) {
  const started = performance.now();
  try {
    const result = await client.callTool({ name: tool, arguments: args }, undefined, {
      timeout: context.callTimeoutMs,
    });
    context.recorder.record(
      tool,
      performance.now() - started,
      result.isError !== true,
      result.isError ? (result.content?.[0]?.text ?? "error") : undefined,
    );
    context.sweep.inspect(principal, tool, result);
    if (result.isError !== true) context.onResult?.(tool, result);
    return result.isError ? undefined : result;
  } catch (error) {
    context.recorder.record(
      tool,
      performance.now() - started,
      false,
      error instanceof Error ? error.message : String(error),
    );
    return undefined;
  }
}

/** Arguments for one operation of `principal`'s agent, or undefined if it has nothing to work on yet. */
function operationArgs(operation, principal, own, counter) {
  const query = `${pick(counter)} ${pick(counter * 7 + 3)}`;
  switch (operation) {
    case "store_context": {
      const text = noteText(principal, counter);
      return {
        args: {
          thread_id: `load-${principal.name}-${counter % 5}`,
          source: counter % 3 === 0 ? "user" : "agent",
          text,
          tags: [pick(counter)],
        },
        text,
      };
    }
    case "update_context": {
      if (own.length === 0) return undefined;
      const entry = own[randomInt(own.length)];
      const text = noteText(principal, counter, entry.version + 1);
      return { args: { context_id: entry.id, text }, text };
    }
    case "get_context_by_ids":
      if (own.length === 0) return undefined;
      return {
        args: { context_ids: Array.from({ length: Math.min(3, own.length) }, () => own[randomInt(own.length)].id) },
      };
    case "search_context":
      return { args: { thread_id: `load-${principal.name}-${counter % 5}`, limit: 10 } };
    case "fts_search_context":
    case "semantic_search_context":
    case "hybrid_search_context":
      return { args: { query, limit: 10 } };
    case "grep_context":
      return { args: { pattern: `Finding ${counter % 4} on ${pick(counter)}`, max_matches: 20 } };
    default:
      throw new Error(`unknown operation ${operation}`);
  }
}

/**
 * Runs `agents` agents (round-robin over `principals`) until `shouldStop()` says so or `maxOps` calls were made in
 * all. Each acknowledged write goes into the ledger; once a principal owns `entriesPerPrincipal` entries its writes
 * become updates. `onResult(tool, result)`, if given, sees every successful result (fault runs read its warnings).
 * Returns when every agent has finished its current call.
 */
export async function runAgents({
  url,
  principals,
  agents,
  mix = defaultMix,
  recorder,
  sweep,
  ledger,
  shouldStop,
  maxOps = Infinity,
  thinkMs = 0,
  errorPauseMs = 100,
  callTimeoutMs = 30_000,
  entriesPerPrincipal = Infinity,
  onResult,
}) {
  const context = { recorder, sweep, callTimeoutMs, onResult };
  let started = 0;
  const clients = [];
  try {
    for (let index = 0; index < agents; index++)
      clients.push({
        principal: principals[index % principals.length],
        client: await connect(url, principals[index % principals.length].key),
      });
    await Promise.all(
      clients.map(async ({ principal, client }) => {
        while (!shouldStop() && started < maxOps) {
          const counter = started++;
          const own = ledger.ownedBy(principal);
          // Past the cap a write updates an entry instead of adding one, so a long run does not measure a growing corpus.
          const chosen = chooseOperation(mix);
          const operation = chosen === "store_context" && own.length >= entriesPerPrincipal ? "update_context" : chosen;
          const planned = operationArgs(operation, principal, own, counter);
          if (planned === undefined) {
            started--;
            const text = noteText(principal, counter);
            const result = await timedCall(context, principal, client, "store_context", {
              thread_id: `load-${principal.name}-0`,
              source: "agent",
              text,
            });
            if (result !== undefined)
              ledger.acknowledge(
                result.structuredContent.context_id,
                principal,
                result.structuredContent.version,
                text,
              );
            else if (errorPauseMs > 0) await new Promise((wait) => setTimeout(wait, errorPauseMs));
            continue;
          }
          const result = await timedCall(context, principal, client, operation, planned.args);
          // A failing server is not hammered in a tight loop: the agent waits a little, as a real client would.
          if (result === undefined && errorPauseMs > 0) await new Promise((wait) => setTimeout(wait, errorPauseMs));
          if (
            result !== undefined &&
            (operation === "store_context" || operation === "update_context") &&
            result.structuredContent?.deduplicated !== true
          ) {
            ledger.acknowledge(
              result.structuredContent.context_id,
              principal,
              result.structuredContent.version,
              planned.text,
            );
          }
          if (thinkMs > 0) await new Promise((wait) => setTimeout(wait, thinkMs));
        }
      }),
    );
  } finally {
    await Promise.all(clients.map(({ client }) => client.close().catch(() => undefined)));
  }
  return started;
}

/** The read tools a probe drives with a foreign id, and the marker searches it drives with a foreign marker's prefix. */
const idProbes = [
  ["get_context_by_ids", (id) => ({ context_ids: [id] })],
  ["read_context_range", (id) => ({ context_id: id, start: 0, end: 400 })],
  ["navigate_context", (id) => ({ context_id: id })],
  ["get_context_history", (id) => ({ context_id: id })],
  ["fetch", (id) => ({ id })],
  ["get_context_by_ids", (id) => ({ context_ids: [id.replaceAll("-", "").slice(0, 16)] })],
];
// The query carries only a prefix of the marker, so an echo of the query in a result is never mistaken for a leak.
const markerProbes = [
  ["fts_search_context", (prefix) => ({ query: prefix, mode: "prefix", limit: 20 })],
  ["grep_context", (prefix) => ({ pattern: prefix, max_matches: 50 })],
  ["hybrid_search_context", (prefix) => ({ query: prefix, limit: 20 })],
  ["semantic_search_context", (prefix) => ({ query: prefix, limit: 20 })],
  ["search", (prefix) => ({ query: prefix })],
  ["search_context", () => ({ limit: 50 })],
  ["list_threads", () => ({ limit: 100 })],
];

/**
 * The cross-principal checker: while the load runs, repeatedly takes a principal and another principal's acknowledged
 * entry and drives every read tool at it, by id and by a prefix of the owner's marker; the sweep judges every answer.
 * As a positive control, the owner's own by-id read must show its marker (else the sweep could not see a leak).
 */
export async function runProbes({ url, principals, recorder, sweep, ledger, shouldStop, pauseMs = 20, onResult }) {
  const clients = new Map();
  let probes = 0;
  let controlFailures = 0;
  try {
    for (const principal of principals) clients.set(principal.name, await connect(url, principal.key));
    const context = { recorder, sweep, callTimeoutMs: 30_000, onResult };
    while (!shouldStop()) {
      const observer = principals[randomInt(principals.length)];
      const foreign = ledger.foreignTo(observer);
      if (foreign.length === 0) {
        await new Promise((wait) => setTimeout(wait, 100));
        continue;
      }
      const target = foreign[randomInt(foreign.length)];
      const owner = principals.find((principal) => principal.name === target.owner);
      const client = clients.get(observer.name);
      for (const [tool, args] of idProbes) await timedCall(context, observer, client, tool, args(target.id));
      for (const [tool, args] of markerProbes)
        await timedCall(context, observer, client, tool, args(owner.marker.slice(0, owner.marker.length - 5)));
      const own = await timedCall(context, owner, clients.get(owner.name), "get_context_by_ids", {
        context_ids: [target.id],
      });
      if (own !== undefined && !JSON.stringify(own.structuredContent).includes(owner.marker)) controlFailures++;
      probes++;
      if (pauseMs > 0) await new Promise((wait) => setTimeout(wait, pauseMs));
    }
  } finally {
    await Promise.all([...clients.values()].map((client) => client.close().catch(() => undefined)));
  }
  return { probes, controlFailures };
}

/**
 * Samples memory (MB) of the named processes every `everyMs`: `pids()` returns { name: pid } at each tick, so a
 * restarted child is followed. Stop it with the returned function; `series` holds [{ t, name: mb, … }].
 */
export function sampleMemory(recorder, pids, rssMb, everyMs = 1000) {
  const series = [];
  const tick = () => {
    const point = { t: recorder.now() };
    for (const [name, pid] of Object.entries(pids())) point[name] = pid === undefined ? null : (rssMb(pid) ?? null);
    series.push(point);
  };
  tick();
  const timer = setInterval(tick, everyMs);
  return { series, stop: () => clearInterval(timer) };
}
