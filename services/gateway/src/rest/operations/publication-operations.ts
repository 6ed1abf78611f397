/** Published resource URIs over REST: publish (or move) one, list yours, take one back. */
import {
  listPublishedResourcesTool,
  publishResourceTool,
  unpublishResourceTool,
} from "../../mcp/tools/publication-tools.js";
import type { RestOperation } from "../operation.js";

export const publicationOperations: readonly RestOperation[] = [
  {
    operationId: "publishResource",
    method: "put",
    path: "/publications",
    tag: "publications",
    summary: "Publish an entry, one of its images or a file it links under a URI of yours (moves a URI you published)",
    tool: publishResourceTool,
    argumentsIn: "body",
  },
  {
    operationId: "listPublications",
    method: "get",
    path: "/publications",
    tag: "publications",
    summary: "List the URIs and templates you published (the tool's own cursor)",
    tool: listPublishedResourcesTool,
    argumentsIn: "query",
  },
  {
    operationId: "unpublishResource",
    method: "post",
    path: "/publications/remove",
    tag: "publications",
    summary: "Take back a URI you published (the entry stays)",
    tool: unpublishResourceTool,
    argumentsIn: "body",
  },
];
