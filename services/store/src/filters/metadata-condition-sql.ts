/**
 * One metadata condition as SQL over `alias.metadata` (jsonb). Every key,
 * path and value travels as a parameter. Conditions that a containment test
 * can express (`eq`, exact `array_contains`) also state one, so the
 * `jsonb_path_ops` GIN index on metadata finds the candidates.
 */
import type { SqlParams } from "../db/sql-database.js";
import type { JsonValue } from "../model/entry-values.js";
import type { MetadataCondition } from "../model/metadata-condition.js";

/** `value` nested under `path` as an object: ["a", "b"], 1 → {"a": {"b": 1}}. */
function nestedUnder(path: readonly string[], value: JsonValue): JsonValue {
  return path.reduceRight<JsonValue>((inner, name) => ({ [name]: inner }), value);
}

interface Operands {
  /** The jsonb value the condition reads (SQL NULL when the key or path is absent). */
  field: string;
  /** That value as text (a string without its quotes); only read where it is a string. */
  text: string;
  /** A parameter holding `value` as jsonb. */
  json: (value: JsonValue) => string;
  /** A parameter holding `value` as text. */
  string: (value: string) => string;
  /** A parameter holding `values` as text[]. */
  strings: (values: string[]) => string;
  /** Whether metadata contains `leaf` at the key (or, for a dotted key, at the key spelled with dots or the path). */
  containsAt: (leaf: JsonValue) => string;
}

/**
 * The operands of a condition. A plain key reads `metadata -> key`; a dotted
 * key reads the top-level key spelled with the dots when the entry has one
 * (so keys written with dots keep matching), else the nested path.
 */
function operands(alias: string, condition: MetadataCondition, params: SqlParams): Operands {
  const key = `${params.add(condition.key)}::text`;
  const field =
    condition.path.length === 0
      ? `(${alias}.metadata -> ${key})`
      : `coalesce(${alias}.metadata -> ${key}, ${alias}.metadata #> ${params.add(condition.path)}::text[])`;
  const json = (value: JsonValue) => `${params.add(JSON.stringify(value))}::jsonb`;
  const containsAt = (leaf: JsonValue) => {
    const flat = `${alias}.metadata @> ${json({ [condition.key]: leaf })}`;
    return condition.path.length === 0
      ? flat
      : `(${flat} OR ${alias}.metadata @> ${json(nestedUnder(condition.path, leaf))})`;
  };
  return {
    field,
    text: `(${field} #>> '{}')`,
    json,
    string: (value) => `${params.add(value)}::text`,
    strings: (values) => `${params.add(values)}::text[]`,
    containsAt,
  };
}

/** Whether the read value is a string equal to `value` ignoring case. */
const foldedEquals = (o: Operands, value: string) =>
  `coalesce(jsonb_typeof(${o.field}) = 'string' AND lower(${o.text}) = lower(${o.string(value)}), false)`;

/** Whether the read value is one of `list`: strings compared ignoring case when `fold`, everything else exactly. */
function isOneOf(o: Operands, list: JsonValue[], fold: boolean): string {
  const exact = `coalesce(${o.field} IN (SELECT jsonb_array_elements(${o.json(list)})), false)`;
  const strings = list.filter((element): element is string => typeof element === "string");
  if (!fold || strings.length === 0) return exact;
  return `(${exact} OR coalesce(jsonb_typeof(${o.field}) = 'string' AND lower(${o.text}) IN (SELECT lower(s) FROM unnest(${o.strings(strings)}) s), false))`;
}

/** Whether the read value is an array holding `element`; strings compared ignoring case when `fold`. */
function arrayHolds(o: Operands, element: JsonValue, fold: boolean): string {
  // The containment finds candidates by index; the second test reads the value the condition names (a dotted key's top-level spelling first).
  if (!fold || typeof element !== "string")
    return `(${o.containsAt([element])} AND coalesce(jsonb_typeof(${o.field}) = 'array' AND ${o.field} @> ${o.json([element])}, false))`;
  return `coalesce(jsonb_typeof(${o.field}) = 'array' AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(${o.field}) x WHERE lower(x) = lower(${o.string(element)})), false)`;
}

/** The affix test of starts_with / ends_with on a string value, with or without case. */
function affix(o: Operands, value: string, end: "start" | "end", exact: boolean): string {
  const [subject, needle] = exact ? [o.text, o.string(value)] : [`lower(${o.text})`, `lower(${o.string(value)})`];
  const test =
    end === "start" ? `starts_with(${subject}, ${needle})` : `right(${subject}, length(${needle})) = ${needle}`;
  return `coalesce(jsonb_typeof(${o.field}) = 'string' AND ${test}, false)`;
}

/**
 * One metadata condition as SQL over `alias.metadata`. Ordering compares
 * jsonb values only of the same JSON type, so numbers compare numerically and
 * strings by collation (ISO dates by time), and no cast can fail on a stored
 * value of another type. Unless `case_sensitive` says otherwise, `contains`
 * folds case and every other string comparison is exact.
 */
export function metadataConditionSql(alias: string, condition: MetadataCondition, params: SqlParams): string {
  const o = operands(alias, condition, params);
  const value = condition.value as JsonValue;
  const fold = condition.caseSensitive === false;
  switch (condition.operator) {
    case "eq":
      if (fold && typeof value === "string") return foldedEquals(o, value);
      // Containment lets the index find candidates; the equality makes arrays and objects match exactly.
      return `(${o.containsAt(value)} AND ${o.field} = ${o.json(value)})`;
    case "ne":
      if (fold && typeof value === "string") return `NOT ${foldedEquals(o, value)}`;
      return `${o.field} IS DISTINCT FROM ${o.json(value)}`;
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const operand = o.json(value);
      const operator = { gt: ">", gte: ">=", lt: "<", lte: "<=" }[condition.operator];
      return `coalesce(jsonb_typeof(${o.field}) = jsonb_typeof(${operand}) AND ${o.field} ${operator} ${operand}, false)`;
    }
    case "in":
      return isOneOf(o, value as JsonValue[], fold);
    case "not_in":
      return `NOT ${isOneOf(o, value as JsonValue[], fold)}`;
    case "exists":
      if (value === undefined) return `coalesce(jsonb_typeof(${o.field}) <> 'null', false)`;
      return value === true ? `(${o.field} IS NOT NULL)` : `(${o.field} IS NULL)`;
    case "not_exists":
      return `NOT coalesce(jsonb_typeof(${o.field}) <> 'null', false)`;
    case "is_null":
      return `coalesce(jsonb_typeof(${o.field}) = 'null', false)`;
    case "is_not_null":
      return `coalesce(jsonb_typeof(${o.field}) <> 'null', false)`;
    case "contains": {
      const element = arrayHolds(o, value, false);
      if (typeof value !== "string") return element;
      const inString =
        condition.caseSensitive === true
          ? `strpos(${o.text}, ${o.string(value)}) > 0`
          : `strpos(lower(${o.text}), lower(${o.string(value)})) > 0`;
      return `coalesce(CASE jsonb_typeof(${o.field}) WHEN 'string' THEN ${inString} ELSE ${element} END, false)`;
    }
    case "starts_with":
      return affix(o, value as string, "start", !fold);
    case "ends_with":
      return affix(o, value as string, "end", !fold);
    case "array_contains":
      return arrayHolds(o, value, fold);
  }
}
