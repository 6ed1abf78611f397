import { test } from "node:test";
import assert from "node:assert/strict";
import { loadStoreConfig } from "./config.js";

test("defaults select PGlite in .context-hub/data on loopback", () => {
  // The search settings have their own tests (search-config); here, everything else.
  const { search, ...config } = loadStoreConfig({});
  assert.equal(search.language, "english");
  assert.deepEqual(config, {
    host: "127.0.0.1",
    port: 50051,
    socketPath: undefined,
    opsPort: 9091,
    database: {
      url: "",
      dataDir: ".context-hub/data",
      poolMax: 10,
      preparedStatements: true,
      migrations: "apply",
      // 0: sized from the data directory, within what an index build's default 256 MB leaves of 1,536.
      pgliteSharedBuffers: { mb: 0, ceilingMb: 1280 },
    },
    idempotency: { ttlMs: 86_400_000 },
    vectors: { kind: "pgvector", qdrant: undefined },
    artifacts: { maxBytes: 52_428_800, uploadTtlMs: 86_400_000 },
    text: { budgetMs: 3000, workers: 1 },
    entryKinds: [],
    logLevel: "info",
  });
});

test("every setting is read, with real numbers", () => {
  const config = loadStoreConfig({
    STORE_HOST: "0.0.0.0",
    STORE_PORT: "0",
    STORE_SOCKET: "/run/context-hub/store.sock",
    STORE_OPS_PORT: "-1",
    DATABASE_URL: "postgres://u:p@db:5432/hub",
    STORE_DATA_DIR: "memory://",
    DATABASE_POOL_MAX: "25",
    STORE_PREPARED_STATEMENTS: "false",
    STORE_MIGRATIONS: "verify",
    STORE_PGLITE_SHARED_BUFFERS_MB: "512",
    STORE_IDEMPOTENCY_TTL_SECONDS: "3600",
    STORE_ARTIFACT_MAX_BYTES: "1048576",
    STORE_ARTIFACT_UPLOAD_TTL_SECONDS: "600",
    STORE_TEXT_BUDGET_MS: "5000",
    STORE_TEXT_WORKERS: "2",
    STORE_ENTRY_KINDS: " recipe,runbook, ",
    LOG_LEVEL: "debug",
  });
  const { search: _search, ...rest } = config;
  assert.deepEqual(rest, {
    host: "0.0.0.0",
    port: 0,
    socketPath: "/run/context-hub/store.sock",
    opsPort: -1,
    database: {
      url: "postgres://u:p@db:5432/hub",
      dataDir: "memory://",
      poolMax: 25,
      preparedStatements: false,
      migrations: "verify",
      pgliteSharedBuffers: { mb: 512, ceilingMb: 1280 },
    },
    idempotency: { ttlMs: 3_600_000 },
    vectors: { kind: "pgvector", qdrant: undefined },
    artifacts: { maxBytes: 1_048_576, uploadTtlMs: 600_000 },
    text: { budgetMs: 5000, workers: 2 },
    entryKinds: ["recipe", "runbook"],
    logLevel: "debug",
  });
  assert.ok(Object.isFrozen(config.database));
});

test("bad settings are all reported at once", () => {
  assert.throws(
    () =>
      loadStoreConfig({
        STORE_PORT: "x",
        STORE_SOCKET: "relative.sock",
        DATABASE_URL: "mysql://db",
        DATABASE_POOL_MAX: "0",
        STORE_MIGRATIONS: "later",
        STORE_TEXT_BUDGET_MS: "5",
        STORE_TEXT_WORKERS: "0",
        STORE_IDEMPOTENCY_TTL_SECONDS: "59",
        STORE_ENTRY_KINDS: "recipe,Not A Kind",
      }),
    (error: Error) =>
      [
        "STORE_PORT",
        "STORE_SOCKET",
        "DATABASE_URL",
        "DATABASE_POOL_MAX",
        "STORE_MIGRATIONS",
        "STORE_TEXT_BUDGET_MS",
        "STORE_TEXT_WORKERS",
        "STORE_IDEMPOTENCY_TTL_SECONDS",
        "STORE_ENTRY_KINDS",
      ].every((name) => error.message.includes(name)),
  );
});

test("PGlite's buffer cache: set by hand it must leave an index build its memory, and 0 sizes it from the data", () => {
  const withCache = (env: NodeJS.ProcessEnv) => loadStoreConfig(env).database.pgliteSharedBuffers;
  assert.deepEqual(withCache({ STORE_PGLITE_SHARED_BUFFERS_MB: "1280" }), { mb: 1280, ceilingMb: 1280 });
  // A larger index build leaves an automatic cache less room (below 128 MB the cache stays at PGlite's default).
  assert.deepEqual(withCache({ STORE_HNSW_BUILD_MEMORY_MB: "1400" }), { mb: 0, ceilingMb: 136 });
  for (const [env, message] of [
    [{ STORE_PGLITE_SHARED_BUFFERS_MB: "1281" }, /STORE_PGLITE_SHARED_BUFFERS_MB: with STORE_HNSW_BUILD_MEMORY_MB/],
    [
      { STORE_PGLITE_SHARED_BUFFERS_MB: "512", STORE_HNSW_BUILD_MEMORY_MB: "1100" },
      /it may take at most 1536 MB of PGlite's 2 GB/,
    ],
    [{ STORE_PGLITE_SHARED_BUFFERS_MB: "8" }, /expected 0 \(sized from the data directory\) or at least 16/],
    [{ STORE_PGLITE_SHARED_BUFFERS_MB: "2048" }, /STORE_PGLITE_SHARED_BUFFERS_MB/],
  ] as const)
    assert.throws(() => loadStoreConfig(env), message);
  // A PostgreSQL server sizes its own cache: the setting is not checked against PGlite's memory there.
  assert.equal(withCache({ DATABASE_URL: "postgres://db/hub", STORE_PGLITE_SHARED_BUFFERS_MB: "1500" })?.mb, 1500);
});

test("the Qdrant backend: its settings with their defaults, and every one read", () => {
  assert.deepEqual(
    loadStoreConfig({ STORE_VECTOR_BACKEND: "qdrant", STORE_QDRANT_URL: "http://qdrant:6333" }).vectors,
    {
      kind: "qdrant",
      qdrant: {
        url: "http://qdrant:6333",
        apiKey: "",
        collection: "context_hub_chunks",
        timeoutMs: 5_000,
        relayBatch: 256,
        relayIdleMs: 200,
        relayMaxBackoffMs: 30_000,
        searchPage: 64,
        searchMaxPoints: 10_000,
      },
    },
  );
  const config = loadStoreConfig({
    STORE_VECTOR_BACKEND: "qdrant",
    STORE_QDRANT_URL: "https://qdrant.example.com",
    STORE_QDRANT_API_KEY: "secret",
    STORE_QDRANT_COLLECTION: "acme-chunks",
    STORE_QDRANT_TIMEOUT_MS: "1500",
    STORE_QDRANT_RELAY_BATCH: "64",
    STORE_QDRANT_RELAY_IDLE_MS: "50",
    STORE_QDRANT_RELAY_MAX_BACKOFF_MS: "5000",
    STORE_QDRANT_SEARCH_PAGE: "128",
    STORE_QDRANT_SEARCH_MAX_POINTS: "2000",
  });
  assert.deepEqual(config.vectors.qdrant, {
    url: "https://qdrant.example.com",
    apiKey: "secret",
    collection: "acme-chunks",
    timeoutMs: 1500,
    relayBatch: 64,
    relayIdleMs: 50,
    relayMaxBackoffMs: 5000,
    searchPage: 128,
    searchMaxPoints: 2000,
  });
  assert.ok(Object.isFrozen(config.vectors));
  // The Qdrant settings are read only when Qdrant is the backend.
  assert.deepEqual(loadStoreConfig({ STORE_QDRANT_URL: "http://qdrant:6333" }).vectors, {
    kind: "pgvector",
    qdrant: undefined,
  });
});

test("bad vector-backend settings are clear start-up errors naming the variable", () => {
  const problems = (env: NodeJS.ProcessEnv) => {
    try {
      loadStoreConfig(env);
    } catch (error) {
      return (error as Error).message;
    }
    return "";
  };
  assert.match(
    problems({ STORE_VECTOR_BACKEND: "milvus" }),
    /STORE_VECTOR_BACKEND: expected one of pgvector, qdrant, graph, got "milvus"/,
  );
  assert.match(
    problems({ STORE_VECTOR_BACKEND: "graph", DATABASE_URL: "postgres://db/context" }),
    /STORE_VECTOR_BACKEND: graph keeps the vector graph inside one store process and needs PGlite \(an empty DATABASE_URL\)/,
  );
  assert.equal(problems({ STORE_VECTOR_BACKEND: "graph" }), "", "positive control: graph on PGlite");
  assert.match(
    problems({ STORE_VECTOR_BACKEND: "qdrant" }),
    /STORE_QDRANT_URL: is required when STORE_VECTOR_BACKEND=qdrant/,
  );
  assert.match(
    problems({ STORE_VECTOR_BACKEND: "qdrant", STORE_QDRANT_URL: "qdrant:6333" }),
    /STORE_QDRANT_URL: expected an http:\/\/ or https:\/\/ URL/,
  );
  assert.match(
    problems({ STORE_QDRANT_COLLECTION: "chunks/../x" }),
    /STORE_QDRANT_COLLECTION: expected 1 to 100 letters, digits, '_' or '-'/,
  );
  const several = problems({
    STORE_VECTOR_BACKEND: "qdrant",
    STORE_QDRANT_URL: "ftp://x",
    STORE_QDRANT_TIMEOUT_MS: "0",
    STORE_QDRANT_RELAY_BATCH: "many",
  });
  for (const name of ["STORE_QDRANT_URL", "STORE_QDRANT_TIMEOUT_MS", "STORE_QDRANT_RELAY_BATCH"])
    assert.ok(several.includes(name), `${name} in: ${several}`);
  const missingUrlAndMore = problems({ STORE_VECTOR_BACKEND: "qdrant", STORE_PORT: "x" });
  assert.match(missingUrlAndMore, /STORE_PORT: expected an integer/);
  assert.match(missingUrlAndMore, /STORE_QDRANT_URL: is required/, "reported together with the other bad variable");
});

test("BM25's parameters: defaults, decimals read exactly, and bad values named", () => {
  assert.deepEqual(loadStoreConfig({}).search.bm25, { k1: 1.2, b: 0.75 });
  assert.equal(loadStoreConfig({}).search.bm25StatisticsTtlMs, 10_000);
  const set = loadStoreConfig({ STORE_BM25_K1: "0.9", STORE_BM25_B: "1", STORE_BM25_STATISTICS_SECONDS: "0" }).search;
  assert.deepEqual(set.bm25, { k1: 0.9, b: 1 });
  assert.equal(set.bm25StatisticsTtlMs, 0);
  assert.throws(
    () => loadStoreConfig({ STORE_BM25_K1: "-1", STORE_BM25_B: "1.5", STORE_BM25_STATISTICS_SECONDS: "soon" }),
    (error: Error) =>
      /STORE_BM25_K1/.test(error.message) &&
      /STORE_BM25_B/.test(error.message) &&
      /STORE_BM25_STATISTICS_SECONDS/.test(error.message) &&
      /from 0 to 1/.test(error.message),
  );
  assert.throws(() => loadStoreConfig({ STORE_BM25_K1: "1e1" }), /STORE_BM25_K1/);
});
