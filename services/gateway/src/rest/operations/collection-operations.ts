/** Collections over REST: create, list, read with their members, rename, delete, and change their members and order. */
import {
  addToCollectionTool,
  createCollectionTool,
  deleteCollectionTool,
  getCollectionTool,
  listCollectionsTool,
  removeFromCollectionTool,
  reorderCollectionTool,
  updateCollectionTool,
} from "../../mcp/tools/collection-tools.js";
import type { RestOperation, RestReply } from "../operation.js";

const collectionPath = { id: { argument: "collection_id", type: "string" } } as const;

/** A reply naming one collection, with its version (name and description changes) as ETag; `created` adds its Location. */
const collectionReply =
  (status: number) =>
  (result: Record<string, unknown>): RestReply => {
    const collection = result.collection as { collection_id: string; version: number };
    return {
      status,
      body: result,
      version: collection.version,
      ...(status === 201 ? { location: `/collections/${collection.collection_id}` } : {}),
    };
  };

export const collectionOperations: readonly RestOperation[] = [
  {
    operationId: "createCollection",
    etag: true,
    method: "post",
    path: "/collections",
    tag: "collections",
    summary: "Create a collection (private to you until shared)",
    tool: createCollectionTool,
    argumentsIn: "body",
    status: 201,
    reply: collectionReply(201),
  },
  {
    operationId: "listCollections",
    method: "get",
    path: "/collections",
    tag: "collections",
    summary: "List the collections you can see (the tool's own cursor)",
    tool: listCollectionsTool,
    argumentsIn: "query",
  },
  {
    operationId: "getCollection",
    etag: true,
    method: "get",
    path: "/collections/{id}",
    tag: "collections",
    summary: "A collection and a page of the members you can see, in order",
    tool: getCollectionTool,
    argumentsIn: "query",
    pathArguments: collectionPath,
    reply: collectionReply(200),
  },
  {
    operationId: "updateCollection",
    etag: true,
    method: "patch",
    path: "/collections/{id}",
    tag: "collections",
    summary: "Rename a collection or change its description (If-Match: the version you read)",
    tool: updateCollectionTool,
    argumentsIn: "body",
    pathArguments: collectionPath,
    ifMatch: true,
    reply: collectionReply(200),
  },
  {
    operationId: "deleteCollection",
    method: "delete",
    path: "/collections/{id}",
    tag: "collections",
    summary: "Delete a collection and revoke its grants; its entries stay",
    tool: deleteCollectionTool,
    argumentsIn: "none",
    pathArguments: collectionPath,
    ifMatch: true,
  },
  {
    operationId: "addCollectionMembers",
    method: "post",
    path: "/collections/{id}/members",
    tag: "collections",
    summary: "Add entries to a collection, at the end or before a position",
    tool: addToCollectionTool,
    argumentsIn: "body",
    pathArguments: collectionPath,
  },
  {
    operationId: "removeCollectionMembers",
    method: "post",
    path: "/collections/{id}/members/batch-remove",
    tag: "collections",
    summary: "Take entries out of a collection (the entries stay)",
    tool: removeFromCollectionTool,
    argumentsIn: "body",
    pathArguments: collectionPath,
  },
  {
    operationId: "reorderCollection",
    method: "put",
    path: "/collections/{id}/order",
    tag: "collections",
    summary: "Put the listed members first, in this order; the rest keep theirs after them",
    tool: reorderCollectionTool,
    argumentsIn: "body",
    pathArguments: collectionPath,
  },
];
