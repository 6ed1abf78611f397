// Entry point of the store service: `main.js` serves the store's gRPC services until SIGTERM/SIGINT;
// `main.js migrate` applies pending database migrations and exits (the chart's migrations Job).
import { createLogger, runMain } from "@context-hub/common";
import { loadStoreConfig, openDatabase, startStore } from "./index.js";

const config = loadStoreConfig(process.env);
const logger = createLogger("store", config.logLevel);

if (process.argv[2] === "migrate") {
  openDatabase({ ...config.database, migrations: "apply" }, logger).then(
    async (database) => {
      await database.close();
      logger.info("migrations complete");
      process.exit(0);
    },
    (error: unknown) => {
      logger.error({ err: error }, error instanceof Error ? error.message : "migration failed");
      process.exit(1);
    },
  );
} else if (process.argv[2] !== undefined) {
  process.stderr.write(
    `Unknown store command "${process.argv[2]}". Usage: node services/store/dist/main.js [migrate]\n`,
  );
  process.exit(2);
} else {
  runMain(() => startStore(config, logger), logger, "store");
}
