// Entry point of the summarizer process: loads config, starts the service, stops it on SIGTERM/SIGINT.
import { createLogger, runMain } from "@context-hub/common";
import { loadSummarizerConfig, startSummarizer } from "./index.js";

const config = loadSummarizerConfig(process.env);
const logger = createLogger("summarizer", config.logLevel);
runMain(() => startSummarizer(config, logger), logger, "summarizer");
