import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import {
  describeEnvironment,
  envBoolean,
  envEnum,
  envInteger,
  envOptionalInteger,
  envOptionalString,
  envString,
  loadConfig,
} from "./config.js";

test("the env helpers record type and default, and keep them through .refine() and .describe()", () => {
  const rows = describeEnvironment({
    A: envInteger(5, 1, 10).describe("an integer"),
    B: envBoolean(true).describe("a flag"),
    C: envEnum(["x", "y"] as const, "y").describe("a choice"),
    D: envString("")
      .refine((value) => value === "" || value.startsWith("/"), { message: "absolute" })
      .describe("a path"),
    E: envOptionalString().describe("maybe"),
    F: envOptionalInteger(0, 100).describe("maybe a number"),
    G: envInteger(1, 0).describe("unbounded"),
  });
  assert.deepEqual(rows, [
    { name: "A", type: "integer 1–10", default: "5", description: "an integer" },
    { name: "B", type: "boolean", default: "true", description: "a flag" },
    { name: "C", type: "x | y", default: "y", description: "a choice" },
    { name: "D", type: "string", default: "", description: "a path" },
    { name: "E", type: "string", default: undefined, description: "maybe" },
    { name: "F", type: "integer 0–100", default: undefined, description: "maybe a number" },
    { name: "G", type: "integer ≥ 0", default: "1", description: "unbounded" },
  ]);
});

test("a variable without a description, or not built with an env helper, is refused by name", () => {
  assert.throws(
    () =>
      describeEnvironment({
        A: envInteger(5),
        B: z.string().optional().describe("raw"),
        C: envString("x").describe("fine"),
      }),
    (error: Error) =>
      /A: no \.describe\(\) text/.test(error.message) &&
      /B: not built with an env helper/.test(error.message) &&
      !/C:/.test(error.message),
  );
});

test("recording type and default changes nothing the helpers parse", () => {
  const schema = z.object({
    N: envOptionalInteger(1, 9),
    S: envOptionalString(),
    P: envString("").refine((value) => value !== "bad", { message: "bad value" }),
  });
  assert.deepEqual(loadConfig(schema, { N: "3", S: "" }), { N: 3, S: undefined, P: "" });
  assert.throws(
    () => loadConfig(schema, { N: "10", P: "bad" }),
    (error: Error) => /N: expected an integer from 1 to 9/.test(error.message) && /P: bad value/.test(error.message),
  );
});
