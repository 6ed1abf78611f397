import type { SqlParams } from "./db/sql-database.js";
import type { MetadataCondition, SearchFilter } from "./search-filter.js";

const aliasPattern = /^[a-z_][a-z0-9_]{0,30}$/;

/**
 * One metadata condition as SQL over `alias.metadata`. Every value travels as
 * a parameter; ordering compares jsonb values only of the same JSON type, so
 * numbers compare numerically and strings by collation (ISO dates by time),
 * and no cast can fail on a stored value of another type.
 */
function metadataCondition(alias: string, condition: MetadataCondition, params: SqlParams): string {
  const key = `${params.add(condition.key)}::text`;
  const field = `${alias}.metadata -> ${key}`;
  const value = () => `${params.add(JSON.stringify(condition.value))}::jsonb`;
  switch (condition.operator) {
    case "eq": {
      const operand = value();
      // Containment lets the jsonb_path_ops index find candidates; the equality makes arrays and objects match exactly.
      return `(${alias}.metadata @> jsonb_build_object(${key}, ${operand}) AND ${field} = ${operand})`;
    }
    case "ne":
      return `(${field}) IS DISTINCT FROM ${value()}`;
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const operand = value();
      const operator = { gt: ">", gte: ">=", lt: "<", lte: "<=" }[condition.operator];
      return `(jsonb_typeof(${field}) = jsonb_typeof(${operand}) AND ${field} ${operator} ${operand})`;
    }
    case "in":
      return `coalesce((${field}) IN (SELECT jsonb_array_elements(${value()})), false)`;
    case "not_in":
      return `NOT coalesce((${field}) IN (SELECT jsonb_array_elements(${value()})), false)`;
    case "exists":
      return condition.value === true ? `(${alias}.metadata ? ${key})` : `NOT (${alias}.metadata ? ${key})`;
    case "contains": {
      const element = `jsonb_typeof(${field}) = 'array' AND ${field} @> jsonb_build_array(${value()})`;
      if (typeof condition.value !== "string") return `coalesce(${element}, false)`;
      const needle = params.add(condition.value);
      return `coalesce(CASE jsonb_typeof(${field}) WHEN 'string' THEN strpos(lower(${alias}.metadata ->> ${key}), lower(${needle}::text)) > 0 ELSE ${element} END, false)`;
    }
    case "starts_with":
      return `coalesce(jsonb_typeof(${field}) = 'string' AND starts_with(${alias}.metadata ->> ${key}, ${params.add(condition.value)}::text), false)`;
  }
}

/**
 * The filter as SQL conditions over the `entries` row aliased `alias`, to be
 * ANDed with the access predicate in the same WHERE clause (so every filter
 * applies before any ORDER BY or LIMIT). Values travel only as parameters.
 */
export function searchFilterConditions(filter: SearchFilter, alias: string, params: SqlParams): string[] {
  if (!aliasPattern.test(alias)) throw new Error(`filter alias ${JSON.stringify(alias)} is not a plain identifier`);
  const conditions: string[] = [];
  if (filter.threadId !== undefined) conditions.push(`${alias}.thread_id = ${params.add(filter.threadId)}`);
  if (filter.source !== undefined) conditions.push(`${alias}.source = ${params.add(filter.source)}`);
  if (filter.tagsAny.length > 0) conditions.push(`${alias}.tags && ${params.add(filter.tagsAny)}::text[]`);
  if (filter.tagsAll.length > 0) conditions.push(`${alias}.tags @> ${params.add(filter.tagsAll)}::text[]`);
  for (const condition of filter.metadata) conditions.push(metadataCondition(alias, condition, params));
  if (filter.createdFrom !== undefined) conditions.push(`${alias}.created_at >= ${params.add(filter.createdFrom.toISOString())}::timestamptz`);
  if (filter.createdTo !== undefined) conditions.push(`${alias}.created_at < ${params.add(filter.createdTo.toISOString())}::timestamptz`);
  if (filter.contentType !== undefined) conditions.push(`${alias}.content_type = ${params.add(filter.contentType)}`);
  return conditions;
}
