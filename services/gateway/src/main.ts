// Entry point of the gateway process: reads the environment, starts the MCP endpoint, stops on SIGTERM.
import { createLogger, runMain } from "@context-hub/common";
import { loadGatewayConfig, startGateway } from "./index.js";

const config = loadGatewayConfig(process.env);
const logger = createLogger("gateway", config.logLevel);
runMain(() => startGateway(config, logger), logger, "gateway");
