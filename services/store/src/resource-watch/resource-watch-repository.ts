/**
 * Resource subscriptions and what a watch re-checks, in SQL. Subscriptions
 * are their principal's own (tenant and subject) and are read only by it;
 * whether an entry is readable is decided by the access predicate and the
 * default trust filter, as a fetch decides it.
 */
import { lockClasses, lockInOrder, toAdvisoryKey } from "../db/advisory-locks.js";
import { createSqlParams, type SqlDatabase } from "../db/sql-database.js";
import { accessPredicate } from "../filters/access-predicate.js";
import { trustFilter } from "../filters/trust-filter.js";
import type { Principal } from "../model/principal.js";

/** The entry columns a reader observes, but the text and what is derived from it (its hash stands for them). */
const observedColumns = [
  "thread_id",
  "source",
  "owner",
  "visibility",
  "content_hash",
  "metadata",
  "tags",
  "summary",
  "content_type",
  "version",
  "updated_at",
  "trust_state",
  "trust_reasons",
  "reviewed_by",
  "reviewed_at",
  "review_note",
  "updated_by",
  "change_kind",
  "restored_from",
  "valid_from",
  "valid_to",
  "kind",
  "title",
  "prompt_arguments",
  "memory_id",
  "prompt_name",
];

/** What a subscribe found and did. */
export type SubscribeOutcome =
  | { kind: "added"; droppedSessions: number }
  | { kind: "present" }
  | { kind: "session-full"; uris: number };

/** The subscription and watch repository over a database. */
export function createResourceWatchRepository(db: SqlDatabase) {
  return {
    /**
     * Adds `uri` to the caller's session unless it is there or the session
     * is full (`maxUris`); a session new to the caller, when it already holds
     * `maxSessions`, first drops the sessions whose latest subscription is
     * oldest. Under the caller's subscriber lock, so concurrent subscribes
     * of one principal count one after another.
     */
    subscribe(
      principal: Principal,
      sessionId: string,
      uri: string,
      maxUris: number,
      maxSessions: number,
    ): Promise<SubscribeOutcome> {
      return db.transaction(async (tx) => {
        await lockInOrder(tx, lockClasses.subscriber, [toAdvisoryKey([principal.tenant, principal.subject])]);
        const { rows } = await tx.query<{ in_session: number; present: boolean; sessions: number; known: boolean }>(
          `SELECT (count(*) FILTER (WHERE s.session_id = $3))::integer AS in_session,
             coalesce(bool_or(s.session_id = $3 AND s.uri = $4), false) AS present,
             count(DISTINCT s.session_id)::integer AS sessions,
             coalesce(bool_or(s.session_id = $3), false) AS known
           FROM resource_subscriptions s WHERE s.tenant = $1 AND s.subject = $2`,
          [principal.tenant, principal.subject, sessionId, uri],
        );
        const found = rows[0] ?? { in_session: 0, present: false, sessions: 0, known: false };
        if (found.present) return { kind: "present" };
        if (found.in_session >= maxUris) return { kind: "session-full", uris: found.in_session };
        let droppedSessions = 0;
        if (!found.known && found.sessions >= maxSessions) {
          const dropped = await tx.query<{ session_id: string }>(
            `DELETE FROM resource_subscriptions d
             WHERE d.tenant = $1 AND d.subject = $2 AND d.session_id IN (
               SELECT s.session_id FROM resource_subscriptions s WHERE s.tenant = $1 AND s.subject = $2
               GROUP BY s.session_id ORDER BY max(s.created_at), s.session_id LIMIT $3)
             RETURNING d.session_id`,
            [principal.tenant, principal.subject, found.sessions - maxSessions + 1],
          );
          droppedSessions = new Set(dropped.rows.map((row) => row.session_id)).size;
        }
        await tx.query(
          "INSERT INTO resource_subscriptions (tenant, subject, session_id, uri, created_at) VALUES ($1, $2, $3, $4, clock_timestamp())",
          [principal.tenant, principal.subject, sessionId, uri],
        );
        return { kind: "added", droppedSessions };
      });
    },

    /** Removes `uri` from the caller's session; whether it was there. */
    async unsubscribe(principal: Principal, sessionId: string, uri: string): Promise<boolean> {
      const { rowCount } = await db.query(
        "DELETE FROM resource_subscriptions WHERE tenant = $1 AND subject = $2 AND session_id = $3 AND uri = $4",
        [principal.tenant, principal.subject, sessionId, uri],
      );
      return rowCount > 0;
    },

    /** The URIs the caller's session subscribes to, by URI. */
    async sessionUris(principal: Principal, sessionId: string): Promise<string[]> {
      const { rows } = await db.query<{ uri: string }>(
        "SELECT s.uri FROM resource_subscriptions s WHERE s.tenant = $1 AND s.subject = $2 AND s.session_id = $3 ORDER BY s.uri",
        [principal.tenant, principal.subject, sessionId],
      );
      return rows.map((row) => row.uri);
    },

    /**
     * What the caller reads of each of `entryIds` it may read now (access
     * predicate, default trust filter), as a digest that changes whenever
     * anything a reader observes of it does: its row but the text (its hash
     * stands for it), its images and the files it links. Entries it may not
     * read are absent.
     */
    async entryStates(principal: Principal, entryIds: readonly string[]): Promise<Map<string, string>> {
      if (entryIds.length === 0) return new Map();
      const params = createSqlParams();
      const { rows } = await db.query<{ id: string; state: string }>(
        `SELECT e.id::text AS id, md5(ROW(${observedColumns.map((column) => `e.${column}`).join(", ")},
             (SELECT string_agg(i.ordinal || ':' || i.sha256, ',' ORDER BY i.ordinal) FROM entry_images i WHERE i.entry_id = e.id),
             (SELECT string_agg(l.sha256, ',' ORDER BY l.sha256) FROM entry_artifact_links l WHERE l.entry_id = e.id))::text) AS state
         FROM entries e
         WHERE e.id = ANY(${params.add(entryIds)}::uuid[]) AND ${accessPredicate(principal, "e", params)} AND ${trustFilter("e", false)}`,
        params.values,
      );
      return new Map(rows.map((row) => [row.id, row.state]));
    },
  };
}

export type ResourceWatchRepository = ReturnType<typeof createResourceWatchRepository>;
