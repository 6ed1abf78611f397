// Worker thread of navigation: parses long stored texts' outlines off the thread that serves calls, under a budget
// that can stop it (see outline-work.ts).
import { serveWorkerTasks } from "@context-hub/common";
import { outlineTasks } from "./outline-work.js";

serveWorkerTasks(outlineTasks);
