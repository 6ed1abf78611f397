/**
 * The OpenAPI 3.1 document of /api/v1, built from the operations table and
 * the tools' own zod schemas (as JSON Schema 2020-12, OpenAPI 3.1's
 * dialect): no field is written twice, so the document cannot drift from
 * what the tools accept and return.
 */
import type { RestOperation } from "./operation.js";
import { problemContentType, problemSchema } from "./problem.js";
import { requestShapeOf, toJsonSchema, type JsonSchema } from "./request-shape.js";

const problemRef = { $ref: "#/components/responses/Problem" };
const etagHeader = {
  description: "The entry's version, quoted: send it as If-Match to change what you read, or If-None-Match to re-read.",
  schema: { type: "string" },
};

/** The success reply's schema: the operation's own, or the tool's output (with next_cursor when paged). */
function replySchemaOf(operation: RestOperation): JsonSchema | null {
  if (operation.replySchema === null) return null;
  const schema = toJsonSchema(operation.replySchema ?? operation.tool.outputSchema, "output");
  if (operation.paging === undefined) return schema;
  return {
    ...schema,
    properties: {
      ...schema.properties,
      next_cursor: {
        type: ["string", "null"],
        description: "Pass as cursor for the next page; null on the last page.",
      },
    },
    required: [...(schema.required ?? []), "next_cursor"],
  };
}

function parametersOf(operation: RestOperation): Record<string, unknown>[] {
  const shape = requestShapeOf(operation);
  const parameters: Record<string, unknown>[] = [];
  for (const [name, parameter] of Object.entries(operation.pathArguments ?? {}))
    parameters.push({ name, in: "path", required: true, schema: { type: parameter.type } });
  for (const [name, { schema, style, required }] of shape.query) {
    const { description, ...rest } = schema;
    parameters.push({
      name,
      in: "query",
      required,
      ...(typeof description === "string" ? { description } : {}),
      // Objects and unions travel as JSON text in the parameter's value.
      ...(style === "json" ? { content: { "application/json": { schema: rest } } } : { schema: rest }),
      ...(style === "list" ? { style: "form", explode: true } : {}),
    });
  }
  if (operation.paging !== undefined)
    parameters.push({
      name: "cursor",
      in: "query",
      required: false,
      description: "next_cursor of the previous page; leave out for the first page.",
      schema: { type: "string" },
    });
  if (shape.idempotencyKey) {
    const input = toJsonSchema(operation.tool.inputSchema, "input");
    parameters.push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      schema: input.properties?.idempotency_key ?? { type: "string" },
    });
  }
  if (shape.ifMatch !== undefined)
    parameters.push({
      name: "If-Match",
      in: "header",
      required: shape.ifMatch === "required",
      description: 'The ETag (entry version) you read, e.g. "3"; refused with 412 if the entry changed since.',
      schema: { type: "string" },
    });
  if (operation.method === "get" && operation.etag === true)
    parameters.push({
      name: "If-None-Match",
      in: "header",
      required: false,
      description: "The ETag you hold: 304 Not Modified while it is current.",
      schema: { type: "string" },
    });
  return parameters;
}

function responsesOf(operation: RestOperation): Record<string, unknown> {
  const status = String(operation.status ?? 200);
  const schema = replySchemaOf(operation);
  const shape = requestShapeOf(operation);
  const versioned = operation.etag === true;
  const headers = {
    ...(versioned ? { ETag: etagHeader } : {}),
    ...(status === "201" ? { Location: { description: "The created resource.", schema: { type: "string" } } } : {}),
  };
  const responses: Record<string, unknown> = {
    [status]: {
      description: operation.summary,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      ...(schema === null ? {} : { content: { "application/json": { schema } } }),
    },
  };
  if (operation.method === "get" && versioned)
    responses["304"] = {
      description: "Not modified: If-None-Match names the current version.",
      headers: { ETag: etagHeader },
    };
  for (const code of ["400", "401", "403", "404", "409", "429", "500", "503"]) responses[code] = problemRef;
  if (shape.ifMatch !== undefined) responses["412"] = problemRef;
  return responses;
}

/** The OpenAPI 3.1 document of the operations this deployment serves. */
export function createOpenApiDocument(operations: readonly RestOperation[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    const shape = requestShapeOf(operation);
    (paths[operation.path] ??= {})[operation.method] = {
      operationId: operation.operationId,
      summary: operation.summary,
      description: operation.tool.description,
      tags: [operation.tag],
      "x-context-hub-scope": operation.tool.scope,
      parameters: parametersOf(operation),
      ...(shape.body === undefined
        ? {}
        : {
            requestBody: {
              required: shape.body.required !== undefined,
              content: { "application/json": { schema: shape.body } },
            },
          }),
      responses: responsesOf(operation),
    };
  }
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "Context Hub REST API",
      version,
      description:
        "The REST face of Context Hub's MCP tools: the same authentication, scopes, rate limits and access rules. Errors are RFC 9457 problem details.",
    },
    servers: [{ url: "/api/v1" }],
    security: [{ bearer: [] }, { apiKey: [] }],
    tags: [...new Set(operations.map((operation) => operation.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "An API key (chk_…) or an OIDC access token, when the deployment turns those on.",
        },
        apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
      },
      schemas: { Problem: toJsonSchema(problemSchema, "output") },
      responses: {
        Problem: {
          description: "An RFC 9457 problem detail with the error's code and remedy.",
          content: { [problemContentType]: { schema: { $ref: "#/components/schemas/Problem" } } },
        },
      },
    },
  };
}
