import { ContextHubError } from "@context-hub/common";
import type { ToolDefinition } from "../tool-definition.js";
import {
  deleteContextBatchTool,
  deleteContextTool,
  updateContextBatchTool,
  updateContextTool,
} from "./change-tools.js";
import { fetchTool, searchTool } from "./connector-tools.js";
import { whoamiTool } from "./identity-tools.js";
import { getContextByIdsTool, getStatisticsTool, listThreadsTool, searchContextTool } from "./read-tools.js";
import { grepContextTool, navigateContextTool, readContextRangeTool } from "./navigation-tools.js";
import { ftsSearchContextTool, hybridSearchContextTool, semanticSearchContextTool } from "./search-tools.js";
import { listGrantsTool, shareContextTool, unshareContextTool } from "./sharing-tools.js";
import { storeContextBatchTool, storeContextTool } from "./store-tools.js";
import { getContextHistoryTool, restoreContextVersionTool } from "./history-tools.js";
import { listReviewQueueTool, reviewContextTool } from "./review-tools.js";
import { getAuditLogTool } from "./audit-tools.js";
import { memoryTools } from "./memory-tools.js";
import { handoffTools } from "./handoff-tools.js";
import { sessionTools } from "./session-tools.js";
import { artifactTools } from "./artifact-tools.js";
import { collectionTools } from "./collection-tools.js";
import { publicationTools } from "./publication-tools.js";
import { startTools } from "./start-tools.js";
import { librarySearchTools } from "./library-search-tools.js";
import { reasonTool } from "./reason-tool.js";

/** Every tool the gateway offers, in the order tools/list shows them. */
export const allTools: readonly ToolDefinition[] = [
  storeContextTool,
  storeContextBatchTool,
  getContextByIdsTool,
  searchContextTool,
  hybridSearchContextTool,
  ftsSearchContextTool,
  semanticSearchContextTool,
  ...librarySearchTools,
  reasonTool,
  navigateContextTool,
  readContextRangeTool,
  grepContextTool,
  listThreadsTool,
  getStatisticsTool,
  updateContextTool,
  updateContextBatchTool,
  deleteContextTool,
  deleteContextBatchTool,
  shareContextTool,
  unshareContextTool,
  listGrantsTool,
  ...collectionTools,
  ...publicationTools,
  getContextHistoryTool,
  restoreContextVersionTool,
  listReviewQueueTool,
  reviewContextTool,
  getAuditLogTool,
  ...memoryTools,
  ...handoffTools,
  ...sessionTools,
  ...artifactTools,
  ...startTools,
  whoamiTool,
  searchTool,
  fetchTool,
];

/** Every tool less the disabled ones; a name that is no tool is a configuration error, not a silent no-op. */
export function enabledTools(disabled: readonly string[]): ToolDefinition[] {
  const known = new Set(allTools.map((tool) => tool.name));
  const unknown = disabled.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new ContextHubError(
      "INVALID_ARGUMENT",
      `CONTEXT_HUB_DISABLED_TOOLS names no tool: ${unknown.join(", ")} (tools: ${[...known].join(", ")})`,
    );
  }
  return allTools.filter((tool) => !disabled.includes(tool.name));
}
