import type { Logger } from "@context-hub/common";
import type { SqlDatabase } from "./db/sql-database.js";
import { createEntryRepository } from "./entry-repository.js";
import { createGrepRunner } from "./grep-runner.js";
import { createPostgresVectorIndex } from "./postgres-vector-index.js";
import { createSearchService, type SearchService } from "./search.js";
import type { SearchConfig } from "./search-config.js";
import { createSearchRepository } from "./search-repository.js";
import { createStatisticsMaintenance } from "./search-statistics.js";
import { applyTextSearchLanguage } from "./text-search-language.js";
import type { VectorIndex } from "./vector-index.js";

/** Search, ready to serve, with what must be released when the store stops. */
export interface OpenSearch {
  service: SearchService;
  vectors: VectorIndex;
  /** The language the full-text index uses. */
  language: string;
  close(): Promise<void>;
}

/**
 * Readies search over a migrated database before the store serves: brings
 * the full-text index to the configured language (rebuilding it when that
 * changed, or refusing in `verify` mode), builds the HNSW index of every
 * stored embedding space that lacks one (PGlite: now; a server: in the
 * background), and starts the grep workers on demand.
 */
export async function openSearch(db: SqlDatabase, config: SearchConfig, logger: Logger, migrations: "apply" | "verify" = "apply"): Promise<OpenSearch> {
  const language = await applyTextSearchLanguage(db, config.language, migrations, logger);
  const repository = createSearchRepository(db);
  const builtin = await repository.builtinLanguages();
  const offered = config.queryLanguages.length === 0 ? builtin : config.queryLanguages.filter((name) => builtin.includes(name));
  const allowed = [...new Set([language, ...offered])].sort();
  const statistics = createStatisticsMaintenance(db, logger);
  await statistics.refresh();
  const vectors = createPostgresVectorIndex({ db, logger, settings: config.vectors });
  await vectors.prepare();
  const grep = createGrepRunner({ maxWorkers: config.grepWorkers });
  const service = createSearchService({ repository, entries: createEntryRepository(db), vectors, grep, languages: { configured: language, allowed } });
  return {
    service,
    vectors,
    language,
    async close() {
      await statistics.close();
      await grep.close();
      await vectors.close();
    },
  };
}
