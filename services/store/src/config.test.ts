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
    opsPort: 9091,
    database: { url: "", dataDir: ".context-hub/data", poolMax: 10, migrations: "apply" },
    logLevel: "info",
  });
});

test("every setting is read, with real numbers", () => {
  const config = loadStoreConfig({
    STORE_HOST: "0.0.0.0",
    STORE_PORT: "0",
    STORE_OPS_PORT: "-1",
    DATABASE_URL: "postgres://u:p@db:5432/hub",
    STORE_DATA_DIR: "memory://",
    DATABASE_POOL_MAX: "25",
    STORE_MIGRATIONS: "verify",
    LOG_LEVEL: "debug",
  });
  const { search: _search, ...rest } = config;
  assert.deepEqual(rest, {
    host: "0.0.0.0",
    port: 0,
    opsPort: -1,
    database: { url: "postgres://u:p@db:5432/hub", dataDir: "memory://", poolMax: 25, migrations: "verify" },
    logLevel: "debug",
  });
  assert.ok(Object.isFrozen(config.database));
});

test("bad settings are all reported at once", () => {
  assert.throws(
    () => loadStoreConfig({ STORE_PORT: "x", DATABASE_URL: "mysql://db", DATABASE_POOL_MAX: "0", STORE_MIGRATIONS: "later" }),
    (error: Error) => ["STORE_PORT", "DATABASE_URL", "DATABASE_POOL_MAX", "STORE_MIGRATIONS"].every((name) => error.message.includes(name)),
  );
});
