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
