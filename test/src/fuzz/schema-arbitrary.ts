import fc from "fast-check";
import { badImageData, forgedFences, hostileText, hostileValue, regexBombs, tsquerySyntax } from "./hostile-values.js";

/** The part of JSON Schema (draft-07, as the server's tools/list publishes it) the arbitraries read. */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  format?: string;
}

/** Ids and markers the fuzzer knows about, so generated ids sometimes name real entries (own and foreign). */
export interface KnownValues {
  ids: readonly string[];
  threads: readonly string[];
}

const cap = (value: number | undefined, fallback: number, limit: number) => Math.min(value ?? fallback, limit);

/** Values for fields whose meaning the name gives away, mixed with the schema's own shape. */
function byName(name: string, known: KnownValues): fc.Arbitrary<unknown> | undefined {
  const id = fc.oneof(
    fc.constantFrom(...known.ids),
    fc.constantFrom(...known.ids).map((full) => full.replaceAll("-", "").slice(0, 12)),
    fc.uuid(),
    fc.stringMatching(/^[0-9a-f]{8,31}$/),
    fc.constantFrom("00000000", "ffffffff-ffff-ffff-ffff-ffffffffffff", "0190000g-0000-7000-8000-000000000000"),
  );
  if (name === "context_id" || name === "id" || name === "target_id" || name === "entry_id") return id;
  if (name === "context_ids") return fc.array(id, { minLength: 1, maxLength: 5 });
  if (name === "thread_id")
    return fc.oneof(
      fc.constantFrom(...known.threads),
      hostileText.filter((text) => text.length > 0 && text.length <= 256),
    );
  if (name === "query")
    return fc.oneof(
      tsquerySyntax,
      hostileText.filter((text) => text.length <= 1000),
    );
  if (name === "pattern") return fc.oneof(regexBombs, fc.constantFrom("aaaa", "turbine", "^#", "a$"));
  if (name === "text")
    return fc.oneof(
      hostileText.filter((text) => text.length > 0),
      forgedFences,
    );
  if (name === "data") return badImageData;
  return undefined;
}

/**
 * An arbitrary of values that follow `schema`, loosely: lengths and sizes are
 * capped so a case stays fast, and fields are drawn from the hostile pools
 * that fit their name. Mutation into invalid values is `hostileArguments`'s job.
 */
export function schemaArbitrary(schema: JsonSchema, known: KnownValues, name = "", depth = 0): fc.Arbitrary<unknown> {
  const named = byName(name, known);
  if (named !== undefined && depth > 0)
    return fc.oneof({ arbitrary: named, weight: 3 }, { arbitrary: plainArbitrary(schema, known, depth), weight: 1 });
  return plainArbitrary(schema, known, depth);
}

function plainArbitrary(schema: JsonSchema, known: KnownValues, depth: number): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives !== undefined && alternatives.length > 0)
    return fc.oneof(...alternatives.map((alternative) => schemaArbitrary(alternative, known, "", depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "string": {
      const minLength = schema.minLength ?? 0;
      const maxLength = Math.max(minLength, cap(schema.maxLength, 40, 60));
      if (schema.format === "date-time")
        return fc
          .date({ min: new Date("1970-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
          .map((date) => date.toISOString());
      // Hostile texts are repeated or cut to the field's length bounds rather than filtered by them: a filter that
      // few texts pass (an exact length, as a SHA-256's 64) would have the generator draw again without end.
      return fc.oneof(
        fc.string({ minLength, maxLength }),
        hostileText.map((text) => toLength(text, minLength, schema.maxLength ?? Infinity)),
      );
    }
    case "integer": {
      const min = schema.minimum ?? (schema.exclusiveMinimum === undefined ? -1000 : schema.exclusiveMinimum + 1);
      const max = schema.maximum ?? (schema.exclusiveMaximum === undefined ? 1000 : schema.exclusiveMaximum - 1);
      return fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) });
    }
    case "number":
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, cap(schema.maxItems, 4, 4));
      return fc.array(
        schema.items === undefined
          ? fc.jsonValue({ maxDepth: 2 })
          : schemaArbitrary(schema.items, known, "", depth + 1),
        { minLength, maxLength },
      );
    }
    case "object":
    case undefined: {
      if (schema.properties === undefined) {
        if (type === undefined) return fc.jsonValue({ maxDepth: 2 });
        return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
      }
      // The required fields and at most two optional ones: with every optional field drawn at once, nearly every
      // case would carry some invalid value and bounce off validation, never reaching the store.
      const properties = schema.properties;
      const required = (schema.required ?? []).filter((key) => key in properties);
      const optional = Object.keys(properties).filter((key) => !required.includes(key));
      return fc.subarray(optional, { maxLength: Math.min(2, optional.length) }).chain((chosen) => {
        const record: Record<string, fc.Arbitrary<unknown>> = {};
        for (const key of [...required, ...chosen])
          record[key] = schemaArbitrary(properties[key]!, known, key, depth + 1);
        return fc.record(record);
      });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** One way to break a well-formed argument object. */
type Mutation =
  | { kind: "replace"; key: string; value: unknown }
  | { kind: "drop"; key: string }
  | { kind: "extra"; key: string; value: unknown }
  | { kind: "whole"; value: unknown }
  | { kind: "none" };

/**
 * Arguments for one tool: mostly schema-shaped values with one field broken
 * (replaced by a hostile value, dropped, or joined by an unknown field),
 * sometimes a wholly wrong argument value, sometimes left well-formed.
 */
export function hostileArguments(
  schema: JsonSchema,
  known: KnownValues,
): fc.Arbitrary<{ args: unknown; mutation: Mutation["kind"] }> {
  const keys = Object.keys(schema.properties ?? {});
  const base = schemaArbitrary(schema, known) as fc.Arbitrary<Record<string, unknown>>;
  const mutations: fc.Arbitrary<Mutation>[] = [
    fc.constant({ kind: "none" as const }),
    fc.record({
      kind: fc.constant("extra" as const),
      key: fc.constantFrom("__proto__", "constructor", "tenant", "owner", "principal", "x".repeat(300)),
      value: hostileValue,
    }),
    fc.record({ kind: fc.constant("whole" as const), value: hostileValue }),
  ];
  if (keys.length > 0) {
    mutations.push(
      fc.record({ kind: fc.constant("replace" as const), key: fc.constantFrom(...keys), value: hostileValue }),
    );
    mutations.push(
      fc.record({ kind: fc.constant("replace" as const), key: fc.constantFrom(...keys), value: hostileValue }),
    );
    mutations.push(fc.record({ kind: fc.constant("drop" as const), key: fc.constantFrom(...keys) }));
  }
  return fc
    .tuple(base, fc.oneof(...mutations))
    .map(([args, mutation]) => ({ args: applyMutation(args, mutation), mutation: mutation.kind }));
}

function applyMutation(args: Record<string, unknown>, mutation: Mutation): unknown {
  switch (mutation.kind) {
    case "none":
      return args;
    case "whole":
      return mutation.value;
    case "drop": {
      const copy = { ...args };
      delete copy[mutation.key];
      return copy;
    }
    case "replace":
    case "extra":
      // defineProperty, so "__proto__" becomes an own key that JSON.stringify sends.
      return Object.defineProperty({ ...args }, mutation.key, {
        value: mutation.value,
        enumerable: true,
        configurable: true,
        writable: true,
      });
  }
}

/** `text` repeated until it is at least `min` long, then cut to at most `max` characters. */
function toLength(text: string, min: number, max: number): string {
  const unit = text === "" ? "x" : text;
  const repeated = unit.length >= min ? unit : unit.repeat(Math.ceil(min / unit.length));
  return repeated.slice(0, max);
}
