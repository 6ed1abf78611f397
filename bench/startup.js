// Measures `context-hub start` from process launch to its "ready" line, five times each for a
// fresh data directory and for a restart on an existing one, and prints the medians.
// Usage: node bench/startup.js [runs]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const bin = fileURLToPath(new URL("../bin/context-hub.js", import.meta.url));
const runs = Number(process.argv[2] ?? 5);

function startOnce(dataDir) {
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const child = spawn(process.execPath, [bin, "start", "--port", "0", "--data-dir", dataDir], {
      env: { ...process.env, LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      if (output.includes("Context Hub is ready")) {
        const ms = performance.now() - began;
        child.once("exit", (code) => (code === 0 ? resolve(ms) : reject(new Error(`exit code ${code} after Ctrl-C`))));
        child.kill("SIGINT");
      }
    });
    child.once("exit", (code) => {
      if (!output.includes("Context Hub is ready")) reject(new Error(`exited with ${code} before ready:\n${output}`));
    });
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fresh = [];
const restart = [];
for (let run = 0; run < runs; run++) {
  const dataDir = mkdtempSync(join(tmpdir(), "context-hub-startup-"));
  try {
    fresh.push(await startOnce(dataDir));
    restart.push(await startOnce(dataDir));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
const show = (values) => values.map((ms) => (ms / 1000).toFixed(2)).join(", ");
console.log(`fresh data directory: median ${(median(fresh) / 1000).toFixed(2)} s (runs: ${show(fresh)})`);
console.log(`existing data directory: median ${(median(restart) / 1000).toFixed(2)} s (runs: ${show(restart)})`);
