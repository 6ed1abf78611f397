/**
 * The time budget of one call's work on text in the operator's batch
 * commands (`reembed`, `backfill-memories`). A served write's budget
 * (`EMBEDDER_TEXT_BUDGET_MS`, `SUMMARIZER_TEXT_BUDGET_MS`) keeps one caller's
 * text from holding a worker others need; these commands work through text
 * the store has already accepted, in batches the operator sizes, so they give
 * each call at least a minute, or the configured budget when that is longer.
 */
export const batchTextBudgetMs = (configuredMs: number): number => Math.max(configuredMs, 60_000);
