// Entry point of the reranker process: loads config, starts the service, stops it on SIGTERM/SIGINT.
import { createLogger, runMain } from "@context-hub/common";
import { loadRerankerConfig, startReranker } from "./index.js";

const config = loadRerankerConfig(process.env);
const logger = createLogger("reranker", config.logLevel);
runMain(() => startReranker(config, logger), logger, "reranker");
