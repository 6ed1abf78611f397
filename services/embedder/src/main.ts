// Entry point of the embedder process: loads config, starts the service, stops it on SIGTERM/SIGINT.
import { createLogger, runMain } from "@context-hub/common";
import { loadEmbedderConfig, startEmbedder } from "./index.js";

const config = loadEmbedderConfig(process.env);
const logger = createLogger("embedder", config.logLevel);
runMain(() => startEmbedder(config, logger), logger, "embedder");
