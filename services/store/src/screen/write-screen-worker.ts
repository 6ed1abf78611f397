// Worker thread of the store's write-time screen: screens long entries off the thread that serves calls, under a
// budget that can stop it (see write-screen.ts).
import { serveWorkerTasks } from "@context-hub/common";
import { screenFields, screenNamedParts, type WriteScreenTasks } from "./write-screen.js";

const tasks: WriteScreenTasks = { screen: screenFields, screenParts: screenNamedParts };

serveWorkerTasks(tasks);
