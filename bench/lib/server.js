// The all-in-one server as the benches run it: `context-hub start` in its own process (the gateway, the workers and a
// supervised store child), so its memory can be sampled apart from the load generator's and it can be killed whole.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { childPids } from "../../test/dist/support/process-tree.js";

const bin = fileURLToPath(new URL("../../bin/context-hub.js", import.meta.url));

/** Resident set size of a process in MB, from /proc (undefined once it is gone). */
export function rssMb(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a pid runs the store's entry point. */
function isStore(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("services/store/dist/main.js");
  } catch {
    return false;
  }
}

/**
 * Starts `context-hub start --port <port> --data-dir <dir>` with `env` and resolves when it prints its MCP URL.
 * The returned handle knows the CLI's pid, finds the current store child's pid (it changes after a restart), and stops
 * the server with SIGINT (clean) or SIGKILL.
 */
export function startServer({ dataDir, env = {}, port = 0, readyTimeoutMs = 120_000 }) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "start", "--port", String(port), "--data-dir", dataDir], {
      env: { ...process.env, LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const collect = (chunk) => {
      output = (output + chunk).slice(-20_000);
      const match = /ready in [\d.]+s: (http:\/\/\S+\/mcp)/.exec(output);
      if (match && !settled) {
        settled = true;
        clearTimeout(timer);
        resolve(handle(child, match[1]));
      }
    };
    let settled = false;
    child.stdout.on("data", collect);
    child.stderr.on("data", (chunk) => {
      output = (output + chunk).slice(-20_000);
    });
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      child.kill("SIGKILL");
      reject(new Error(`the server was not ready after ${readyTimeoutMs} ms:\n${output}`));
    }, readyTimeoutMs);
    child.once("exit", (code, signal) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Error(`the server exited (${code ?? signal}) before it was ready:\n${output}`));
    });
    function handle(process, url) {
      const exited = new Promise((done) =>
        process.exitCode !== null || process.signalCode !== null ? done() : process.once("exit", () => done()),
      );
      return {
        url,
        pid: process.pid,
        log: () => output,
        storePid: () => childPids(process.pid).find(isStore),
        exited,
        async stop() {
          process.kill("SIGINT");
          await exited;
        },
        async kill() {
          const store = childPids(process.pid).find(isStore);
          process.kill("SIGKILL");
          await exited;
          // The store's IPC channel ends it when its parent dies; make sure, so a restart can open the data directory.
          if (store !== undefined) {
            try {
              globalThis.process.kill(store, "SIGKILL");
            } catch {
              // Already gone.
            }
            for (let waited = 0; rssMb(store) !== undefined && waited < 10_000; waited += 50)
              await new Promise((wait) => setTimeout(wait, 50));
          }
        },
      };
    }
  });
}
