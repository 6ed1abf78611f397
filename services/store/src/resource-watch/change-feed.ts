/**
 * The store process's one listener on the resource change channel (see
 * migration 28), fanning each committed change out to the watchers of its
 * tenant, in commit order. A payload names its tenant by md5, so a watcher
 * registers under the md5 of its own tenant and never hears another's.
 */
import { createHash } from "node:crypto";
import type { Logger } from "@context-hub/common";
import { resourceChangesChannel } from "../db/migrations/0028-resource-subscriptions.js";
import type { SqlDatabase } from "../db/sql-database.js";

/** One committed change, as a trigger announced it. Keys are md5 hex of the names they stand for. */
export type ResourceChange =
  /** An entry a reader can observe changed (written, deleted, its images or linked files). */
  | { kind: "entry"; entryId: string }
  /** Who may read an entry changed (a grant on it, a collection it joined or left). */
  | { kind: "access"; entryId: string }
  /** Who may read some of the tenant's entries changed (a thread or collection grant). */
  | { kind: "tenant-access" }
  | { kind: "publications"; publisherKey: string }
  | { kind: "subscriptions"; subjectKey: string; sessionKey: string };

/** What a watcher hears: a change of its tenant, or `reset` when changes may have been missed. */
export type FeedEvent = ResourceChange | { kind: "reset" };

/** The md5 hex a payload names a tenant, subject, publisher or session by. */
export function changeKey(name: string): string {
  return createHash("md5").update(name, "utf8").digest("hex");
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const keyPattern = /^[0-9a-f]{32}$/;

/**
 * A payload as its tenant key and change, or `everything` (a bulk write:
 * anything may have changed in any tenant); undefined for one this store
 * does not understand.
 */
export function parseResourceChange(
  payload: string,
): { tenantKey: string; change: ResourceChange } | "everything" | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { k: kind, t: tenantKey, x: target } = parsed as Record<string, unknown>;
  if (kind === "r") return "everything";
  if (typeof tenantKey !== "string" || !keyPattern.test(tenantKey) || typeof target !== "string") return undefined;
  const withTenant = (change: ResourceChange) => ({ tenantKey, change });
  switch (kind) {
    case "e":
      return uuidPattern.test(target) ? withTenant({ kind: "entry", entryId: target }) : undefined;
    case "a":
      return uuidPattern.test(target) ? withTenant({ kind: "access", entryId: target }) : undefined;
    case "t":
      return withTenant({ kind: "tenant-access" });
    case "p":
      return keyPattern.test(target) ? withTenant({ kind: "publications", publisherKey: target }) : undefined;
    case "s": {
      const [subjectKey = "", sessionKey = ""] = target.split(":");
      return keyPattern.test(subjectKey) && keyPattern.test(sessionKey)
        ? withTenant({ kind: "subscriptions", subjectKey, sessionKey })
        : undefined;
    }
    default:
      return undefined;
  }
}

export interface ChangeFeed {
  /**
   * Calls `listener` with every change of `tenant` committed after this
   * resolves (the channel is listened on by then), and with `reset` when
   * changes may have been missed, until the returned function is called.
   */
  follow(tenant: string, listener: (event: FeedEvent) => void): Promise<() => void>;
  /** Stops listening; followers hear nothing more. */
  close(): Promise<void>;
}

/** The change feed over `database`'s notifications: it starts listening on the first follow, and keeps to it. */
export function createChangeFeed(database: Pick<SqlDatabase, "listen">, logger: Logger): ChangeFeed {
  const followers = new Map<string, Set<(event: FeedEvent) => void>>();
  let listening: Promise<() => Promise<void>> | undefined;
  let closed = false;

  const deliver = (payload: string) => {
    const parsed = parseResourceChange(payload);
    if (parsed === undefined) {
      logger.warn({ payload: payload.slice(0, 200) }, "ignored a resource change this store does not understand");
      return;
    }
    if (parsed === "everything") return reset();
    for (const listener of followers.get(parsed.tenantKey) ?? []) listener(parsed.change);
  };
  const reset = () => {
    for (const listeners of followers.values()) for (const listener of listeners) listener({ kind: "reset" });
  };
  const start = () => {
    listening ??= database.listen(resourceChangesChannel, deliver, reset).catch((error: unknown) => {
      // The next follow tries again.
      listening = undefined;
      throw error;
    });
    return listening;
  };

  return {
    async follow(tenant, listener) {
      if (closed) throw new Error("the change feed is closed");
      const tenantKey = changeKey(tenant);
      await start();
      let listeners = followers.get(tenantKey);
      if (listeners === undefined) followers.set(tenantKey, (listeners = new Set()));
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && followers.get(tenantKey) === listeners) followers.delete(tenantKey);
      };
    },
    async close() {
      closed = true;
      followers.clear();
      const stop = await listening?.catch(() => undefined);
      listening = undefined;
      await stop?.();
    },
  };
}
