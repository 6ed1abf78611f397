// values.yaml and values.schema.json: every key documented, every key constrained, nothing in one that is not in the other.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { chartDir } from "./chart.js";

const valuesText = readFileSync(join(chartDir, "values.yaml"), "utf8");
const values = parse(valuesText) as Record<string, unknown>;
const schema = JSON.parse(readFileSync(join(chartDir, "values.schema.json"), "utf8")) as Schema;

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  $comment?: string;
  required?: string[];
}

test("every key in values.yaml has a comment right above it", () => {
  const lines = valuesText.split("\n");
  const undocumented: string[] = [];
  lines.forEach((line, index) => {
    const key = /^(\s*)([A-Za-z0-9_.-]+):/.exec(line);
    if (key === null) return;
    const indent = key[1] ?? "";
    const previous = lines[index - 1] ?? "";
    if (!previous.startsWith(`${indent}#`)) undocumented.push(`line ${index + 1}: ${line.trim()}`);
  });
  assert.deepEqual(undocumented, []);
});

test("values.yaml has no list of objects whose keys would escape the comment rule", () => {
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) {
      assert.ok(
        value.every((item) => typeof item !== "object"),
        `${path} holds objects; give them as a commented example instead`,
      );
    } else if (typeof value === "object" && value !== null) {
      for (const [key, child] of Object.entries(value)) walk(child, `${path}.${key}`);
    }
  };
  walk(values, "");
});

test("the schema closes every object: additionalProperties false, a typed map, or a Kubernetes type the API server validates", () => {
  const open: string[] = [];
  const walk = (node: Schema, path: string): void => {
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (types.includes("object")) {
      const closed = node.additionalProperties === false;
      const map = typeof node.additionalProperties === "object" && node.properties === undefined;
      const kubernetes = node.$comment?.startsWith("Kubernetes ") === true && node.properties === undefined;
      if (!closed && !map && !kubernetes) open.push(path);
    }
    for (const [key, child] of Object.entries(node.properties ?? {})) walk(child, `${path}.${key}`);
    if (typeof node.additionalProperties === "object") walk(node.additionalProperties, `${path}.*`);
    if (node.items !== undefined) walk(node.items, `${path}[]`);
  };
  walk(schema, "$");
  assert.deepEqual(open, []);
});

test("the schema and values.yaml describe the same keys", () => {
  const fromValues: string[] = [];
  const fromSchema: string[] = [];
  const walkValues = (value: unknown, path: string, node: Schema | undefined): void => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return;
    // Maps (annotations, labels, resources) are free-form below their own key.
    if (node !== undefined && node.properties === undefined) return;
    for (const [key, child] of Object.entries(value)) {
      fromValues.push(`${path}${key}`);
      walkValues(child, `${path}${key}.`, node?.properties?.[key]);
    }
  };
  const walkSchema = (node: Schema, path: string): void => {
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      fromSchema.push(`${path}${key}`);
      walkSchema(child, `${path}${key}.`);
    }
  };
  walkValues(values, "", schema);
  walkSchema(schema, "");
  assert.deepEqual(fromValues.sort(), fromSchema.sort());
});
