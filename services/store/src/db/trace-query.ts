import { isTracing, SpanKind, withSpan } from "@context-hub/common";

/**
 * A client span per SQL statement. Statements hold only placeholders, never
 * values (every value travels as a parameter), so the text is safe to record.
 */
export function traceQuery<T>(system: "postgresql" | "pglite", text: string, run: () => Promise<T>): Promise<T> {
  if (!isTracing()) return run();
  const statement = text.replace(/\s+/g, " ").trim();
  const operation = statement.split(" ", 1)[0]?.toUpperCase() ?? "QUERY";
  return withSpan(
    `db ${operation}`,
    { "db.system": "postgresql", "db.client": system, "db.statement": statement.slice(0, 2000) },
    run,
    { kind: SpanKind.CLIENT },
  );
}
