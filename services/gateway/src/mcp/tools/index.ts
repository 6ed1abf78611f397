import type { ToolDefinition } from "../tool-definition.js";
import { deleteContextBatchTool, deleteContextTool, updateContextBatchTool, updateContextTool } from "./change-tools.js";
import { getContextByIdsTool, getStatisticsTool, listThreadsTool, searchContextTool } from "./read-tools.js";
import { shareContextTool, unshareContextTool } from "./sharing-tools.js";
import { storeContextBatchTool, storeContextTool } from "./store-tools.js";

/** Every tool the gateway offers, in the order tools/list shows them. */
export const allTools: readonly ToolDefinition[] = [
  storeContextTool,
  storeContextBatchTool,
  getContextByIdsTool,
  searchContextTool,
  listThreadsTool,
  getStatisticsTool,
  updateContextTool,
  updateContextBatchTool,
  deleteContextTool,
  deleteContextBatchTool,
  shareContextTool,
  unshareContextTool,
];
