/**
 * Where each of a tool's arguments travels in an HTTP request, read off the
 * tool's own input schema (as JSON Schema): path parameters, headers
 * (Idempotency-Key, If-Match), the paging cursor, and the rest as query
 * parameters or the JSON body. The router and the OpenAPI document both use
 * it, so what is documented is what is accepted.
 */
import { z } from "zod";
import type { RestOperation } from "./operation.js";

export type JsonSchema = Record<string, unknown> & {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
};

/** How a query parameter's text becomes an argument: as it is, a number, a boolean, a repeated list, or JSON. */
export type QueryStyle = "string" | "number" | "boolean" | "list" | "json";

export interface RequestShape {
  /** The tool's arguments REST fills from the path, the headers and the cursor. */
  bound: Set<string>;
  /** The query parameters, with their schemas (argumentsIn "query"). */
  query: Map<string, { schema: JsonSchema; style: QueryStyle; required: boolean }>;
  /** The body's schema (argumentsIn "body"). */
  body: JsonSchema | undefined;
  /** The Idempotency-Key header fills idempotency_key. */
  idempotencyKey: boolean;
  /** If-Match fills expected_version; required when the tool requires it. */
  ifMatch: "required" | "optional" | undefined;
}

/** A tool input or output schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), without its $schema line. */
export function toJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  });
  return rest as JsonSchema;
}

function styleOf(schema: JsonSchema): QueryStyle {
  const styles: Record<string, QueryStyle> = {
    string: "string",
    integer: "number",
    number: "number",
    boolean: "boolean",
  };
  if (schema.type === "array") return schema.items?.type === "string" ? "list" : "json";
  // Objects, unions and anything else travel as JSON text.
  return (typeof schema.type === "string" ? styles[schema.type] : undefined) ?? "json";
}

const cache = new WeakMap<RestOperation, RequestShape>();

/** The request shape of an operation, computed once. */
export function requestShapeOf(operation: RestOperation): RequestShape {
  const known = cache.get(operation);
  if (known !== undefined) return known;
  const input = toJsonSchema(operation.tool.inputSchema, "input");
  const properties = input.properties ?? {};
  const required = new Set(input.required ?? []);
  const bound = new Set<string>();
  for (const parameter of Object.values(operation.pathArguments ?? {}))
    if (parameter.argument !== undefined) bound.add(parameter.argument);
  for (const name of Object.keys(operation.fixedArguments?.({}) ?? {})) bound.add(name);
  const idempotencyKey = "idempotency_key" in properties;
  if (idempotencyKey) bound.add("idempotency_key");
  let ifMatch: RequestShape["ifMatch"];
  if (operation.ifMatch === true) {
    bound.add("expected_version");
    ifMatch = required.has("expected_version") ? "required" : "optional";
  }
  if (operation.paging === "offset") bound.add("offset");
  if (operation.paging === "before_seq") bound.add("before_seq");

  const free = Object.entries(properties).filter(([name]) => !bound.has(name));
  const query = new Map<string, { schema: JsonSchema; style: QueryStyle; required: boolean }>();
  let body: JsonSchema | undefined;
  if (operation.argumentsIn === "query") {
    for (const [name, schema] of free)
      query.set(name, { schema, style: styleOf(schema), required: required.has(name) });
  } else if (operation.argumentsIn === "body") {
    body = {
      ...input,
      properties: Object.fromEntries(free),
      required: [...required].filter((name) => !bound.has(name)),
    };
    if (body.required?.length === 0) delete body.required;
  }
  const shape = { bound, query, body, idempotencyKey, ifMatch };
  cache.set(operation, shape);
  return shape;
}
