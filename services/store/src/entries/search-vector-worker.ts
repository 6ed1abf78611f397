// Worker thread that computes full-text vectors of long texts for a PGlite store: an in-memory PGlite of its own, with
// the store's `entry_search_vector` function, so parsing a megabyte never runs on the thread where the store's database
// answers every other caller (see search-vectors.ts).
import { workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { serveWorkerTasks } from "@context-hub/common";
import type { SearchVectorTasks, SearchVectorWorkerData } from "./search-vectors.js";

let database: PGlite | undefined;

const tasks: SearchVectorTasks = {
  async vector({ text }) {
    if (database === undefined) throw new Error("the full-text worker's database is not open");
    const { rows } = await database.query<{ vector: string }>("SELECT entry_search_vector($1::text)::text AS vector", [
      text,
    ]);
    return rows[0]?.vector ?? "";
  },
};

serveWorkerTasks(tasks, async () => {
  const { functionDefinition } = workerData as SearchVectorWorkerData;
  database = await PGlite.create();
  await database.exec(functionDefinition);
});
