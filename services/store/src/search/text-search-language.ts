import type { Logger } from "@context-hub/common";
import type { SqlDatabase } from "../db/sql-database.js";
import { languageNamePattern } from "./text-search.js";

/** Serialises language changes between replicas (its own key; migrations use another). */
const languageLockKey = "4858301372553183746";

/**
 * Makes the stored full-text index use `language` (a text-search
 * configuration such as `english`, `german` or `simple`). The stored
 * `search_vector` column holds `entry_search_vector(text)`, and each
 * kept version stores the vector its entry had; when the configured language
 * differs from the one recorded in `search_settings`, this replaces that
 * function's configuration and recomputes every entry's and every kept
 * version's vector (and their GIN indexes) in one transaction under an
 * advisory lock, then records the new language. In `verify` mode (replicas that must not change
 * the database) a mismatch is an error instead. Returns the language in use.
 */
export async function applyTextSearchLanguage(
  db: SqlDatabase,
  language: string,
  mode: "apply" | "verify",
  logger: Logger,
): Promise<string> {
  if (!languageNamePattern.test(language))
    throw new Error(`STORE_SEARCH_LANGUAGE ${JSON.stringify(language)} is not a text-search configuration name`);
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1::bigint)", [languageLockKey]);
    const { rows } = await tx.query<{ value: string }>(
      "SELECT value FROM search_settings WHERE key = 'text_search_language'",
    );
    const stored = rows[0]?.value ?? "english";
    if (stored === language) return language;
    const known = await tx.query("SELECT 1 FROM pg_ts_config WHERE cfgname = $1", [language]);
    if (known.rows.length === 0)
      throw new Error(
        `STORE_SEARCH_LANGUAGE ${JSON.stringify(language)} is not a text-search configuration this database has`,
      );
    if (mode === "verify") {
      throw new Error(
        `the full-text index was built for ${stored}, but STORE_SEARCH_LANGUAGE is ${language}; start one store with STORE_MIGRATIONS=apply (or run the migrations Job) to rebuild it`,
      );
    }
    const started = performance.now();
    // format(%L) quotes the configuration name; the body is otherwise the function migration 1 created.
    const { rows: ddl } = await tx.query<{ sql: string }>(
      `SELECT format($ddl$CREATE OR REPLACE FUNCTION entry_search_vector(body text) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
BEGIN
  RETURN to_tsvector(%1$L::regconfig, body);
EXCEPTION WHEN program_limit_exceeded THEN
  RETURN to_tsvector(%1$L::regconfig, left(body, 200000));
END
$fn$$ddl$, $1::text) AS sql`,
      [language],
    );
    await tx.query(ddl[0]?.sql ?? "");
    // The stored vectors are recomputed with the new configuration; search_length follows them (a generated column).
    const { rowCount } = await tx.query("UPDATE entries SET search_vector = entry_search_vector(text)");
    // Kept versions store theirs, so an as_of search parses its query and its versions in the same language.
    const versions = await tx.query("UPDATE entry_versions SET search_vector = entry_search_vector(text)");
    await tx.query(
      "INSERT INTO search_settings (key, value) VALUES ('text_search_language', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now()",
      [language],
    );
    logger.info(
      {
        from: stored,
        to: language,
        entries: rowCount,
        versions: versions.rowCount,
        ms: Math.round(performance.now() - started),
      },
      "rebuilt the full-text index for a new text-search language",
    );
    return language;
  });
}
