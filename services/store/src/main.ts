// Entry point of the store service: loads its config, starts it and closes it on SIGTERM/SIGINT.
import { createLogger, runMain } from "@context-hub/common";
import { loadStoreConfig, startStore } from "./index.js";

const config = loadStoreConfig(process.env);
const logger = createLogger("store", config.logLevel);
runMain(() => startStore(config, logger), logger);
