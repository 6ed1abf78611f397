export { startAllInOne, type AllInOne, type AllInOneOptions } from "./all-in-one.js";
export { findFreePort, startStoreProcess, storeMainPath, type StoreProcess } from "./service-process.js";
export { runReembedCommand } from "./reembed-command.js";
export { runReindexCommand } from "./reindex-command.js";
export { removeStaleStoreSocket, writeRuntimeFile, type RuntimeInfo } from "./runtime-file.js";
export { runExportCommand, runImportCommand } from "./transfer-command.js";
