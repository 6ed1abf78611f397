/**
 * Every operation of `/api/v1`, each a route onto one tool: its request is
 * assembled into the tool's arguments (path, query or body, and the
 * Idempotency-Key and If-Match headers), validated by the tool's own input
 * schema and run by the tool's own handler; the OpenAPI document is built
 * from this table and the same schemas. The rows live by domain in
 * operations/; a tool joins REST with one row there.
 */
import { createApiKeyOperation, listApiKeysOperation, revokeApiKeyOperation } from "./api-key-operations.js";
import type { RestOperation } from "./operation.js";
import { collectionOperations } from "./operations/collection-operations.js";
import { publicationOperations } from "./operations/publication-operations.js";
import { entryOperations } from "./operations/entry-operations.js";
import { searchOperations } from "./operations/search-operations.js";
import { workflowOperations } from "./operations/workflow-operations.js";

/** A tenant administrator's API keys. */
const apiKeyOperations: readonly RestOperation[] = [
  {
    operationId: "createApiKey",
    method: "post",
    path: "/api-keys",
    tag: "api-keys",
    summary: "Create an API key in your tenant (shown once)",
    tool: createApiKeyOperation,
    argumentsIn: "body",
    status: 201,
    reply: (result) => ({ status: 201, body: result, location: `/api-keys/${String(result.id)}` }),
  },
  {
    operationId: "listApiKeys",
    method: "get",
    path: "/api-keys",
    tag: "api-keys",
    summary: "List your tenant's API keys",
    tool: listApiKeysOperation,
    argumentsIn: "query",
  },
  {
    operationId: "revokeApiKey",
    method: "delete",
    path: "/api-keys/{id}",
    tag: "api-keys",
    summary: "Revoke an API key of your tenant",
    tool: revokeApiKeyOperation,
    argumentsIn: "none",
    pathArguments: { id: { argument: "id", type: "string" } },
  },
];

/** The operations of /api/v1, in the order the OpenAPI document lists them. */
export const restOperations: readonly RestOperation[] = [
  ...entryOperations,
  ...collectionOperations,
  ...publicationOperations,
  ...searchOperations,
  ...workflowOperations,
  ...apiKeyOperations,
];
