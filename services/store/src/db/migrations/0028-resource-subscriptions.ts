import type { Migration } from "./migration.js";

/** The one channel every resource change is announced on (see resource-watch/change-feed.ts). */
export const resourceChangesChannel = "context_hub_resource_changes";

/**
 * Statements that write rows in bulk (an import) run with row notifications
 * off and announce one change of everything at the end: a million rows would
 * otherwise queue a million payloads in the transaction.
 */
export const bulkResourceChanges = {
  off: "SELECT set_config('context_hub.resource_changes', 'off', true)",
  announce: `SELECT pg_notify('${resourceChangesChannel}', '{"k":"r"}')`,
} as const;

/**
 * The entry columns a reader can observe (fetch, search results, history,
 * resources): every column but the search bookkeeping (`search_vector`,
 * rewritten by a text-search language change, and the `search_length`
 * generated from it). No read writes to `entries`.
 */
const observedEntryColumns = [
  "tenant",
  "thread_id",
  "source",
  "owner",
  "visibility",
  "text",
  "text_length",
  "preview",
  "content_hash",
  "metadata",
  "tags",
  "summary",
  "content_type",
  "version",
  "created_at",
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

const rowOf = (alias: "OLD" | "NEW") => `(${observedEntryColumns.map((column) => `${alias}.${column}`).join(", ")})`;

/**
 * Resource subscriptions, and the change notifications resource watches
 * follow.
 *
 * - `resource_subscriptions`: the URIs a 2025 MCP session subscribed to,
 *   keyed by its principal (tenant and subject) and the gateway's session
 *   id, so any store replica can stream a session's changes.
 * - Triggers `pg_notify` one channel (`context_hub_resource_changes`) with a
 *   small JSON payload `{k, t, x}`: `t` is md5 of the tenant and `x` names
 *   what changed, so a payload stays far below NOTIFY's 8,000 bytes whatever
 *   the names. Kinds: `e` an entry a reader can observe changed (insert,
 *   delete, any observed column, its images or linked files; `x` its id);
 *   `a` who may read an entry changed (a grant on it, or it joined or left a
 *   collection; `x` its id); `t` who may read some of the tenant's entries
 *   changed (a thread or collection grant; `x` empty); `p` a publisher's
 *   publications changed (`x` md5 of the publisher); `s` a session's
 *   subscriptions changed (`x` md5 of the subject, a colon, md5 of the
 *   session id); `r` (no tenant) anything may have changed anywhere, sent
 *   once by a bulk write that turned row notifications off for its
 *   transaction (`bulkResourceChanges`).
 * - NOTIFY is delivered at commit, in commit order, and never for a rolled-back
 *   transaction, so a watcher sees changes in the order they became visible.
 *   Identical payloads within one transaction arrive once.
 * - Reads never notify: `entries` notifies only when an observed column
 *   really changed (`UPDATE OF` and a WHEN clause), so the search bookkeeping
 *   rewriting `search_vector` is silent.
 */
export const resourceSubscriptions: Migration = {
  version: 28,
  name: "resource subscriptions and change notifications",
  async up(tx) {
    await tx.query(`
CREATE TABLE resource_subscriptions (
  tenant text NOT NULL,
  subject text NOT NULL,
  session_id text COLLATE "C" NOT NULL,
  uri text COLLATE "C" NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (tenant, subject, session_id, uri)
)`);

    await tx.query(`
CREATE FUNCTION resource_change_notify(kind text, tenant text, target text) RETURNS void
LANGUAGE sql AS $$
  SELECT pg_notify('${resourceChangesChannel}', json_build_object('k', kind, 't', md5(tenant), 'x', target)::text)
  WHERE current_setting('context_hub.resource_changes', true) IS DISTINCT FROM 'off'
$$`);

    await tx.query(`
CREATE FUNCTION resource_changes_entries() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM resource_change_notify('e', OLD.tenant, OLD.id::text);
  ELSE
    PERFORM resource_change_notify('e', NEW.tenant, NEW.id::text);
  END IF;
  RETURN NULL;
END
$$`);
    await tx.query(
      "CREATE TRIGGER resource_changes_entries_written AFTER INSERT OR DELETE ON entries FOR EACH ROW EXECUTE FUNCTION resource_changes_entries()",
    );
    await tx.query(`
CREATE TRIGGER resource_changes_entries_updated AFTER UPDATE OF ${observedEntryColumns.join(", ")} ON entries
FOR EACH ROW WHEN (${rowOf("OLD")} IS DISTINCT FROM ${rowOf("NEW")})
EXECUTE FUNCTION resource_changes_entries()`);

    // Rows hanging off an entry: `kind` for the entry they belong to. A row removed with its entry (ON DELETE CASCADE)
    // finds no entry any more, and needs nothing: the entry's own delete announced it.
    await tx.query(`
CREATE FUNCTION resource_changes_entry_rows() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  changed_entry uuid;
  entry_tenant text;
BEGIN
  IF TG_OP = 'DELETE' THEN
    changed_entry := OLD.entry_id;
  ELSE
    changed_entry := NEW.entry_id;
  END IF;
  SELECT e.tenant INTO entry_tenant FROM entries e WHERE e.id = changed_entry;
  IF entry_tenant IS NOT NULL THEN
    PERFORM resource_change_notify(TG_ARGV[0], entry_tenant, changed_entry::text);
  END IF;
  IF TG_OP = 'UPDATE' AND OLD.entry_id IS DISTINCT FROM NEW.entry_id THEN
    SELECT e.tenant INTO entry_tenant FROM entries e WHERE e.id = OLD.entry_id;
    IF entry_tenant IS NOT NULL THEN
      PERFORM resource_change_notify(TG_ARGV[0], entry_tenant, OLD.entry_id::text);
    END IF;
  END IF;
  RETURN NULL;
END
$$`);
    for (const [table, kind] of [
      ["entry_images", "e"],
      ["entry_artifact_links", "e"],
      ["collection_members", "a"],
    ] as const)
      await tx.query(
        `CREATE TRIGGER resource_changes_${table} AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION resource_changes_entry_rows('${kind}')`,
      );

    // An entry grant changes who reads that entry; a thread or collection grant, who reads some of the tenant's.
    await tx.query(`
CREATE FUNCTION resource_changes_grants() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    IF OLD.entry_id IS NOT NULL THEN
      PERFORM resource_change_notify('a', OLD.tenant, OLD.entry_id::text);
    ELSE
      PERFORM resource_change_notify('t', OLD.tenant, '');
    END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    IF NEW.entry_id IS NOT NULL THEN
      PERFORM resource_change_notify('a', NEW.tenant, NEW.entry_id::text);
    ELSE
      PERFORM resource_change_notify('t', NEW.tenant, '');
    END IF;
  END IF;
  RETURN NULL;
END
$$`);
    await tx.query(
      "CREATE TRIGGER resource_changes_grants AFTER INSERT OR UPDATE OR DELETE ON grants FOR EACH ROW EXECUTE FUNCTION resource_changes_grants()",
    );

    await tx.query(`
CREATE FUNCTION resource_changes_publications() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    PERFORM resource_change_notify('p', OLD.tenant, md5(OLD.publisher));
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM resource_change_notify('p', NEW.tenant, md5(NEW.publisher));
  END IF;
  RETURN NULL;
END
$$`);
    await tx.query(
      "CREATE TRIGGER resource_changes_publications AFTER INSERT OR UPDATE OR DELETE ON resource_publications FOR EACH ROW EXECUTE FUNCTION resource_changes_publications()",
    );

    await tx.query(`
CREATE FUNCTION resource_changes_subscriptions() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    PERFORM resource_change_notify('s', OLD.tenant, md5(OLD.subject) || ':' || md5(OLD.session_id));
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM resource_change_notify('s', NEW.tenant, md5(NEW.subject) || ':' || md5(NEW.session_id));
  END IF;
  RETURN NULL;
END
$$`);
    await tx.query(
      "CREATE TRIGGER resource_changes_subscriptions AFTER INSERT OR UPDATE OR DELETE ON resource_subscriptions FOR EACH ROW EXECUTE FUNCTION resource_changes_subscriptions()",
    );
  },
};
