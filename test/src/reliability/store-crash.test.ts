import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createLogger, startTracing, type RunningService } from "@context-hub/common";
import { waitFor } from "@context-hub/common/testing";
import { loadEmbedderConfig, startEmbedder } from "@context-hub/embedder";
import { loadGatewayConfig, startGateway } from "@context-hub/gateway";
import { loadRerankerConfig, startReranker } from "@context-hub/reranker";
import { openDatabase, type SqlDatabase } from "@context-hub/store";
import { loadSummarizerConfig, startSummarizer } from "@context-hub/summarizer";
import { startStoreProcess, type StoreProcess } from "@context-hub/cli";
import { callOk, callTool, connectMcpClient, textOf } from "../support/mcp.js";
import { startTestPostgres } from "../support/postgres.js";
import {
  generationOf,
  judgeStream,
  planWrite,
  snapshotDatabase,
  type Acknowledgement,
  type DatabaseSnapshot,
  type PlannedWrite,
} from "./stored-writes.js";

/**
 * I-5 under SIGKILL. Four MCP clients write a stream of entries, each with
 * its own idempotency key, while the store process is killed seven times and
 * restarted after each; the writers wait for it, so every failed call was
 * under way when a kill came. A kill comes a random delay after a write
 * started (up to a typical write's duration: any stage of a write) or,
 * alternately, after a Commit call to the store started (up to a typical
 * commit's duration: inside commits); the gateway's trace spans show which
 * Commit calls a kill cut short.
 *
 * Then, before anything is retried, the database itself is read: every
 * acknowledged write is whole (its row with the exact text, and the version
 * and hash acknowledged; every chunk the embedder makes of the text, with its
 * exact vector; the summary; the node summaries; the audit record; the
 * idempotency record), and every unacknowledged write is either absent
 * (nothing of it in any table, nor in the saved vector graph) or whole (it
 * committed and only its acknowledgement was lost). Nothing else is stored.
 * Retrying each unacknowledged write with its key then returns the entry
 * that committed, or stores the write once. Where the store keeps a vector
 * graph beside PGlite (as the all-in-one does), a semantic search after the
 * last restart finds every acknowledged entry through the graph.
 *
 * The kill delays come from a seeded generator; the seed is printed, and
 * STORE_CRASH_SEED replays them.
 */

const logger = createLogger("crash-test", "silent");
const killsPerBackend = 7;
const writerCount = 4;
/** Writes acknowledged after a restart before the next kill, so every kill meets a stream in full flow. */
const acksBetweenKills = 3;
/** The longest wait for the stream to make progress (or the store to come back) before the test gives up. */
const progressTimeoutMs = 30_000;
const seed = Number(process.env.STORE_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));

interface Workers {
  url: string;
  embedder: string;
  summarizer: string;
  services: RunningService[];
}

async function startWorkersAndGateway(storeAddress: string): Promise<Workers> {
  const env = { ...process.env, LOG_LEVEL: "silent" };
  const [embedder, summarizer, reranker] = await Promise.all([
    startEmbedder(loadEmbedderConfig({ ...env, EMBEDDER_PORT: "0", EMBEDDER_OPS_PORT: "-1" }), logger),
    startSummarizer(loadSummarizerConfig({ ...env, SUMMARIZER_PORT: "0", SUMMARIZER_OPS_PORT: "-1" }), logger),
    startReranker(loadRerankerConfig({ ...env, RERANKER_PORT: "0", RERANKER_OPS_PORT: "-1" }), logger),
  ]);
  const gateway = await startGateway(
    loadGatewayConfig({
      ...env,
      GATEWAY_PORT: "0",
      STORE_ADDRESS: storeAddress,
      EMBEDDER_ADDRESS: `127.0.0.1:${embedder.port}`,
      SUMMARIZER_ADDRESS: `127.0.0.1:${summarizer.port}`,
      RERANKER_ADDRESS: `127.0.0.1:${reranker.port}`,
      GATEWAY_STORE_TIMEOUT_MS: "3000",
    }),
    logger,
  );
  return {
    url: `http://127.0.0.1:${gateway.port}/mcp`,
    embedder: `127.0.0.1:${embedder.port}`,
    summarizer: `127.0.0.1:${summarizer.port}`,
    services: [gateway, embedder, summarizer, reranker],
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** A deterministic pseudo-random sequence, so a failing run's kill delays can be replayed. */
function createRandom(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Something that happens again and again; `next()` resolves the next time it does. */
function createSignal() {
  let waiters: (() => void)[] = [];
  return {
    next: () => new Promise<void>((resolve) => waiters.push(resolve)),
    fire() {
      const woken = waiters;
      waiters = [];
      for (const wake of woken) wake();
    },
  };
}

type SpanProcessor = NonNullable<Parameters<typeof startTracing>[2]>[number];

/** The span of the gateway's Commit call to the store: it starts as the call goes out and ends when the reply (or the failure) comes back. */
const commitSpanName = "contexthub.store.v1.EntriesService/Commit";

/**
 * The gateway's Commit calls, seen through its trace spans (the gateway runs
 * in this process): which are under way, how long they take, which failed.
 */
function createCommitWatch() {
  const underWay = new Map<string, number>();
  const durations: number[] = [];
  const failed = new Set<string>();
  const started = createSignal();
  const processor: SpanProcessor = {
    onStart(span) {
      if (span.name !== commitSpanName) return;
      underWay.set(span.spanContext().spanId, performance.now());
      started.fire();
    },
    onEnd(span) {
      const id = span.spanContext().spanId;
      const startedAt = underWay.get(id);
      if (startedAt === undefined) return;
      underWay.delete(id);
      // A failed call records its error as an exception event.
      if (span.events.some((event) => event.name === "exception")) failed.add(id);
      else durations.push(performance.now() - startedAt);
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  return {
    processor,
    /** Resolves when the next Commit call goes out. */
    nextStart: () => started.next(),
    /** The span ids of the Commit calls under way now. */
    underWay: () => [...underWay.keys()],
    /** The median duration of the Commit calls that succeeded. */
    typicalMs: () => median(durations),
    hasFailed: (id: string) => failed.has(id),
  };
}

const sleep = (ms: number) => new Promise<void>((wake) => setTimeout(wake, ms));

/** Waits until `condition` holds, looking again whenever `signal` fires; fails after `progressTimeoutMs`. */
async function waitUntil(
  condition: () => boolean,
  signal: ReturnType<typeof createSignal>,
  what: string,
): Promise<void> {
  const deadline = performance.now() + progressTimeoutMs;
  while (!condition()) {
    const left = deadline - performance.now();
    if (left <= 0) throw new Error(`timed out waiting until ${what}`);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([signal.next(), new Promise<void>((wake) => (timer = setTimeout(wake, left)))]);
    clearTimeout(timer);
  }
}

/** Until a call through the gateway reaches the store: the gateway reconnects on its own schedule (at most 2 s apart). */
async function untilStoreReachable(client: Client): Promise<void> {
  await waitFor(
    async () => {
      const result = await callTool(client, "search_context", { limit: 1 });
      if (result.isError) throw new Error(textOf(result));
      return true;
    },
    { what: "the gateway to reach the restarted store", timeoutMs: progressTimeoutMs, intervalMs: 50 },
  );
}

const acknowledgementOf = (result: CallToolResult): Acknowledgement => {
  const ack = result.structuredContent as { context_id: string; version: number; content_hash: string };
  return { id: ack.context_id, version: ack.version, contentHash: ack.content_hash };
};

const argumentsOf = (write: PlannedWrite) => ({
  thread_id: write.threadId,
  source: "agent",
  text: write.text,
  idempotency_key: write.idempotencyKey,
});

/** One store_context call of the stream. */
interface WriteCall {
  write: PlannedWrite;
  startedAt: number;
  endedAt?: number;
  acknowledged?: Acknowledgement;
}

interface Kill {
  /** What the kill was timed from: a write's start (any stage of a write), or a Commit call's start (inside commits). */
  from: "write" | "commit";
  /** How long after that start it came. */
  delayMs: number;
  /** The store_context calls under way when it came. */
  inFlight: WriteCall[];
  /** The span ids of the Commit calls under way when it came. */
  commits: string[];
}

interface Backend {
  name: string;
  /** The store's database: its environment, a way to open it in this process, and where its vector graph is saved (if it keeps one). */
  open(): Promise<{
    env: Record<string, string>;
    database(): Promise<SqlDatabase>;
    graphDirectory: string | undefined;
    close(): Promise<void>;
  }>;
}

const backends: Backend[] = [
  {
    name: "PGlite on disk",
    async open() {
      const dataDir = mkdtempSync(join(tmpdir(), "context-hub-crash-"));
      return {
        // As the all-in-one runs PGlite: vectors in the store's own graph; searched through it at any size.
        env: {
          DATABASE_URL: "",
          STORE_DATA_DIR: dataDir,
          STORE_VECTOR_BACKEND: "graph",
          STORE_VECTOR_EXACT_BELOW: "0",
        },
        database: () => openDatabase({ url: "", dataDir, poolMax: 1, migrations: "verify" }, logger),
        graphDirectory: join(dataDir, "vector-graphs"),
        close: async () => rmSync(dataDir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: "PostgreSQL server",
    async open() {
      const postgres = await startTestPostgres();
      return {
        env: { DATABASE_URL: postgres.url, STORE_VECTOR_BACKEND: "pgvector" },
        database: () => openDatabase({ url: postgres.url, dataDir: "", poolMax: 2, migrations: "verify" }, logger),
        graphDirectory: undefined,
        close: postgres.close,
      };
    },
  },
];

for (const backend of backends) {
  describe(`SIGKILL of the store during a stream of writes (${backend.name})`, () => {
    test("acknowledged writes survive whole; unacknowledged ones are absent or whole; retries land exactly once", async (t) => {
      t.diagnostic(`seed ${seed} (STORE_CRASH_SEED=${seed} replays these kill delays)`);
      const began = performance.now();
      const now = () => performance.now() - began;
      const random = createRandom(seed);
      const commits = createCommitWatch();
      const tracing = startTracing("crash-test", {}, [commits.processor]);

      const target = await backend.open();
      // As the all-in-one runs it: on a Unix socket no other process can take between the restarts.
      const socketDirectory = mkdtempSync(join(tmpdir(), "context-hub-crash-"));
      const listen = { socketPath: join(socketDirectory, "store.sock") };
      const storeEnv = { ...process.env, LOG_LEVEL: "error", ...target.env };
      let store: StoreProcess | undefined;
      const services: RunningService[] = [];
      const clients: Client[] = [];
      t.after(async () => {
        for (const client of clients) await client.close();
        for (const service of services) await service.close();
        await store?.kill();
        await target.close();
        rmSync(socketDirectory, { recursive: true, force: true });
        await tracing?.shutdown();
      });
      store = await startStoreProcess(listen, storeEnv);
      const workers = await startWorkersAndGateway(store.address);
      services.push(...workers.services);
      for (let index = 0; index <= writerCount; index++) clients.push(await connectMcpClient(workers.url));
      const probe = clients[writerCount]!;

      /** Takes the store down for inspection (SIGTERM: a clean stop), reads the database, and closes it again. */
      const inspect = async (): Promise<DatabaseSnapshot> => {
        await store?.stop();
        store = undefined;
        const database = await target.database();
        try {
          return await snapshotDatabase(database, target.graphDirectory);
        } finally {
          await database.close();
        }
      };
      const restart = async () => {
        store = await startStoreProcess(listen, storeEnv);
        await untilStoreReachable(probe);
      };

      // The stream: each writer sends its next write as soon as its last one is answered, and waits out a downed store.
      const calls: WriteCall[] = [];
      const writeStarted = createSignal();
      const writeAcknowledged = createSignal();
      let running = true;
      let serving = Promise.resolve();
      let reopen = () => {};
      const runWriter = async (client: Client) => {
        for (;;) {
          await serving;
          if (!running) return;
          const call: WriteCall = { write: planWrite(calls.length), startedAt: now() };
          calls.push(call);
          writeStarted.fire();
          const result = await callTool(client, "store_context", argumentsOf(call.write)).catch(() => undefined);
          if (result !== undefined && !result.isError) call.acknowledged = acknowledgementOf(result);
          call.endedAt = now();
          if (call.acknowledged !== undefined) writeAcknowledged.fire();
        }
      };
      const stream = Promise.all(clients.slice(0, writerCount).map(runWriter));

      const kills: Kill[] = [];
      let restartedAt = 0;
      const acknowledgedSinceRestart = () =>
        calls.filter((call) => call.acknowledged !== undefined && call.startedAt >= restartedAt).length;
      try {
        for (let kill = 0; kill < killsPerBackend; kill++) {
          await waitUntil(
            () => acknowledgedSinceRestart() >= acksBetweenKills,
            writeAcknowledged,
            `${acksBetweenKills} writes were acknowledged after restart ${kill}`,
          );
          // Alternately a random moment of a write, whatever stage it is in, and a random moment of a Commit call.
          const from = kill % 2 === 0 ? "write" : "commit";
          const typicalMs =
            from === "write"
              ? median(
                  calls.filter((call) => call.acknowledged !== undefined).map((call) => call.endedAt! - call.startedAt),
                )
              : commits.typicalMs();
          await (from === "write" ? writeStarted.next() : commits.nextStart());
          const delayMs = random() * typicalMs;
          // The kill lands at a random real moment of a write under way in other processes: real time is the point.
          await sleep(delayMs);
          serving = new Promise((resolve) => (reopen = resolve));
          kills.push({
            from,
            delayMs,
            inFlight: calls.filter((call) => call.endedAt === undefined),
            commits: commits.underWay(),
          });
          await store!.kill();
          await restart();
          restartedAt = now();
          reopen();
        }
        await waitUntil(
          () => acknowledgedSinceRestart() >= acksBetweenKills,
          writeAcknowledged,
          "writes were acknowledged after the last restart",
        );
      } finally {
        running = false;
        reopen();
        await stream;
      }
      const acknowledged = calls.filter((call) => call.acknowledged !== undefined);
      const unacknowledged = calls.filter((call) => call.acknowledged === undefined);
      const interrupted = kills.map((kill) => kill.inFlight.filter((call) => call.acknowledged === undefined).length);
      const commitsCutShort = kills.map((kill) => kill.commits.filter(commits.hasFailed).length);
      t.diagnostic(
        `${calls.length} writes in ${Math.round(now())} ms: ${acknowledged.length} acknowledged, ${unacknowledged.length} not; kills ` +
          kills
            .map(
              (kill, index) =>
                `${Math.round(kill.delayMs)} ms after a ${kill.from} started (${interrupted[index]} of ${kill.inFlight.length} writes under way failed, ` +
                `${commitsCutShort[index]} of ${kill.commits.length} Commit calls under way)`,
            )
            .join("; "),
      );
      // Calls refused while the store was down do not count: writers wait for it to come back before they call again. A kill
      // may still fail none, when every write under way had its reply from the store and was on its way back to the client.
      assert.ok(
        interrupted.filter((count) => count > 0).length > killsPerBackend / 2,
        `most kills failed writes whose calls had started before them (seed ${seed})`,
      );
      assert.ok(
        commitsCutShort.some((count) => count > 0),
        `a kill cut short Commit calls the store had under way (seed ${seed})`,
      );

      // Whatever the graph lost with the killed process, the store caught up from the stored chunks when it came back.
      const strategies = new Set<string>();
      const notFound: number[] = [];
      for (const call of acknowledged) {
        // The text's first 1,000 characters (a query's most) lie nearest its own first chunk, far nearer than any other entry's.
        const found = await callOk<{ results: { id: string }[]; strategy: string }>(probe, "semantic_search_context", {
          query: call.write.text.slice(0, 1_000),
          limit: 3,
        });
        strategies.add(found.strategy);
        if (found.results[0]?.id !== call.acknowledged!.id) notFound.push(call.write.index);
      }
      assert.deepEqual(
        notFound,
        [],
        "semantic search ranks every acknowledged write first for its own text after the restarts",
      );
      if (target.graphDirectory !== undefined)
        assert.deepEqual([...strategies], ["ann"], "the vector graph answered the searches");

      // Before any retry: what did the kills leave in the database?
      const generations = await generationOf(
        calls.map((call) => call.write.text),
        workers,
      );
      const first = await inspect();
      const { verdicts, problems } = judgeStream(first, calls, generations);
      const absent = unacknowledged.filter((call) => verdicts[call.write.index]?.state === "absent").length;
      const whole = unacknowledged.filter((call) => verdicts[call.write.index]?.state === "whole").length;
      t.diagnostic(
        `unacknowledged writes after the kills: ${absent} absent, ${whole} whole (committed, acknowledgement lost); ${first.abortedWriteTransactions} write transaction(s) recorded as aborted`,
      );
      assert.deepEqual(
        problems,
        [],
        `every acknowledged write is whole, every other absent or whole, nothing else stored (seed ${seed})`,
      );

      // Now the retries: each returns the entry that committed, or stores the write once.
      await restart();
      for (const call of unacknowledged) {
        const result = await callTool(probe, "store_context", argumentsOf(call.write));
        assert.ok(!result.isError, `retry of write ${call.write.index}: ${textOf(result)}`);
        call.acknowledged = acknowledgementOf(result);
        const verdict = verdicts[call.write.index];
        if (verdict?.state === "whole")
          assert.equal(
            call.acknowledged.id,
            verdict.entry.id,
            `the retry of write ${call.write.index} returns the entry that committed`,
          );
      }
      const last = await inspect();
      assert.equal(last.entries.length, calls.length, "one entry per write: nothing lost, nothing doubled");
      assert.deepEqual(
        judgeStream(last, calls, generations).problems,
        [],
        `after the retries every write is stored once, whole, as acknowledged (seed ${seed})`,
      );
    });
  });
}
