/**
 * The gateway's internals that cross-service tests reach for deliberately,
 * imported as "@context-hub/gateway/testing": the tool input schemas, so a
 * test can hold them against the store's own validation.
 */
export { limits as toolInputLimits } from "../mcp/input-schemas.js";
export { storeContextInput, updateContextInput } from "../mcp/write-schemas.js";
