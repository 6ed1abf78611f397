/** Searching over REST: every search mode, the cited answer, threads, statistics and who the caller is. */
import { getStatisticsTool, listThreadsTool } from "../../mcp/tools/read-tools.js";
import { grepContextTool } from "../../mcp/tools/navigation-tools.js";
import { deepSearchTool, findItemsTool } from "../../mcp/tools/library-search-tools.js";
import { reasonTool } from "../../mcp/tools/reason-tool.js";
import { whoamiTool } from "../../mcp/tools/identity-tools.js";
import {
  ftsSearchContextTool,
  hybridSearchContextTool,
  semanticSearchContextTool,
} from "../../mcp/tools/search-tools.js";
import type { RestOperation } from "../operation.js";

export const searchOperations: readonly RestOperation[] = [
  {
    operationId: "searchFullText",
    method: "post",
    path: "/search/fts",
    tag: "search",
    summary: "Full-text search",
    tool: ftsSearchContextTool,
    argumentsIn: "body",
  },
  {
    operationId: "searchSemantic",
    method: "post",
    path: "/search/semantic",
    tag: "search",
    summary: "Semantic (vector) search",
    tool: semanticSearchContextTool,
    argumentsIn: "body",
  },
  {
    operationId: "searchHybrid",
    method: "post",
    path: "/search/hybrid",
    tag: "search",
    summary: "Hybrid search: full text and semantic, fused",
    tool: hybridSearchContextTool,
    argumentsIn: "body",
  },
  {
    operationId: "searchGrep",
    method: "post",
    path: "/search/grep",
    tag: "search",
    summary: "Find a literal string or a regular expression in entries' text, with context lines",
    tool: grepContextTool,
    argumentsIn: "body",
  },
  {
    operationId: "searchDeep",
    method: "post",
    path: "/search/deep",
    tag: "search",
    summary: "The best entries for a question, each with its best passages",
    tool: deepSearchTool,
    argumentsIn: "body",
  },
  {
    operationId: "searchItems",
    method: "post",
    path: "/search/items",
    tag: "search",
    summary: "The entries that best match a query, named and ranked, without their text",
    tool: findItemsTool,
    argumentsIn: "body",
  },
  {
    operationId: "answerQuestion",
    method: "post",
    path: "/search/answer",
    tag: "search",
    summary: "A question answered from the best passages, every statement cited, citations checked against them",
    tool: reasonTool,
    argumentsIn: "body",
  },
  {
    operationId: "listThreads",
    method: "get",
    path: "/threads",
    tag: "threads",
    summary: "List threads holding entries you can see",
    tool: listThreadsTool,
    argumentsIn: "query",
    paging: "offset",
  },
  {
    operationId: "getStatistics",
    method: "get",
    path: "/statistics",
    tag: "threads",
    summary: "Count the entries you can see",
    tool: getStatisticsTool,
    argumentsIn: "query",
  },
  {
    operationId: "whoami",
    method: "get",
    path: "/whoami",
    tag: "identity",
    summary: "Who you are to Context Hub, and what this deployment has on",
    tool: whoamiTool,
    argumentsIn: "query",
  },
];
