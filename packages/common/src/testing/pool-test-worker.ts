// Worker module of the worker-pool tests: tasks that answer, fail, crash, spin, or wait on shared memory as a test directs.
import { getPriority } from "node:os";
import { threadId, workerData } from "node:worker_threads";
import { ContextHubError } from "../errors.js";
import { serveWorkerTasks } from "../worker-protocol.js";

const settings = (workerData ?? {}) as { failStart?: boolean };

serveWorkerTasks(
  {
    echo: (input: unknown) => ({ input, threadId }),
    /** This thread's nice value (on Linux, the thread's own). */
    niceness: () => getPriority(),
    /** Loops until the pool terminates the worker: what a catastrophic regular expression looks like from outside. */
    spin: () => {
      for (;;) {
        // Nothing here yields; only terminating the thread ends it.
      }
    },
    /** Counts itself in slot 1 of the shared array (notifying it), then blocks until slot 0 is set. */
    hold: (input: { shared: SharedArrayBuffer }) => {
      const cells = new Int32Array(input.shared);
      Atomics.add(cells, 1, 1);
      Atomics.notify(cells, 1);
      Atomics.wait(cells, 0, 0);
      return threadId;
    },
    refuse: () => {
      throw new ContextHubError("INVALID_ARGUMENT", "the input is not acceptable", { remedy: "send another" });
    },
    crash: () => {
      setImmediate(() => {
        throw new Error("the worker broke");
      });
      return new Promise(() => undefined);
    },
  },
  () => {
    if (settings.failStart === true)
      throw new ContextHubError("PROVIDER_ERROR", "the model could not be loaded", {
        remedy: "check the cache directory",
      });
  },
);
