import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { envBoolean, envEnum, envInteger, loadConfig } from "./config.js";

const schema = z.object({
  PORT: envInteger(8080, 0, 65535),
  DEBUG: envBoolean(false),
  MODE: envEnum(["a", "b"] as const, "a"),
});

test("loadConfig applies defaults and real types", () => {
  const config = loadConfig(schema, {});
  assert.deepEqual(config, { PORT: 8080, DEBUG: false, MODE: "a" });
  assert.ok(Object.isFrozen(config));
  assert.deepEqual(loadConfig(schema, { PORT: "9", DEBUG: "yes", MODE: "b" }), { PORT: 9, DEBUG: true, MODE: "b" });
});

test("loadConfig reports every bad variable at once", () => {
  assert.throws(
    () => loadConfig(schema, { PORT: "70000", DEBUG: "maybe", MODE: "c" }),
    (error: Error) => /PORT/.test(error.message) && /DEBUG/.test(error.message) && /MODE/.test(error.message),
  );
});
