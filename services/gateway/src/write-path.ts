/** The write path's public face: its operations, domain types and stage timer (the parts live in write/). */
export { createWritePath, type WritePath, type WritePathOptions } from "./write/write-path.js";
export { timeStage, type WriteStage } from "./write/stage-timing.js";
export type {
  EntryChange,
  ItemFailure,
  ItemOutcome,
  NewEntryInput,
  Source,
  Visibility,
  WriteAck,
} from "./write-types.js";
// Temporary: clients/search-filter.ts still converts sources itself; this goes once search calls a search client.
export { toProtoSource } from "./clients/proto-enums.js";
