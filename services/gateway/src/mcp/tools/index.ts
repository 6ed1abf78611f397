import type { ToolDefinition } from "../tool-definition.js";
import { deleteContextBatchTool, deleteContextTool, updateContextBatchTool, updateContextTool } from "./change-tools.js";
import { fetchTool, searchTool } from "./connector-tools.js";
import { whoamiTool } from "./identity-tools.js";
import { getContextByIdsTool, getStatisticsTool, listThreadsTool, searchContextTool } from "./read-tools.js";
import { grepContextTool, navigateContextTool, readContextRangeTool } from "./navigation-tools.js";
import { ftsSearchContextTool, hybridSearchContextTool, semanticSearchContextTool } from "./search-tools.js";
import { shareContextTool, unshareContextTool } from "./sharing-tools.js";
import { storeContextBatchTool, storeContextTool } from "./store-tools.js";
import { getContextHistoryTool, restoreContextVersionTool } from "./history-tools.js";
import { listReviewQueueTool, reviewContextTool } from "./review-tools.js";
import { getAuditLogTool } from "./audit-tools.js";

/** Every tool the gateway offers, in the order tools/list shows them. */
export const allTools: readonly ToolDefinition[] = [
  storeContextTool,
  storeContextBatchTool,
  getContextByIdsTool,
  searchContextTool,
  hybridSearchContextTool,
  ftsSearchContextTool,
  semanticSearchContextTool,
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
  getContextHistoryTool,
  restoreContextVersionTool,
  listReviewQueueTool,
  reviewContextTool,
  getAuditLogTool,
  whoamiTool,
  searchTool,
  fetchTool,
];
