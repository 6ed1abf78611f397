/**
 * Bounds on caller-supplied JSON (metadata and metadata filter values),
 * checked without recursion so that no input, however deep, can exhaust the
 * stack before it is refused. Deeper nesting than `maxJsonDepth` is refused
 * outright: every later step (the size check, the gRPC encoding, whose
 * decoder stops at 100 nested messages, PostgreSQL's jsonb) may recurse.
 */

import { entryLimits } from "@context-hub/common";

/** The deepest nesting of objects and arrays a metadata value may have; the value itself is level 1. */
export const maxJsonDepth = entryLimits.metadataDepth;

/**
 * Keys no caller-supplied object may have: in JavaScript they reach an
 * object's prototype rather than naming a field, so they would be lost or
 * misread on the way to the store and back.
 */
export const reservedKeys: readonly string[] = ["__proto__", "constructor"];

const isContainer = (value: unknown): value is object => value !== null && typeof value === "object";

/** A path for messages: `metadata.a.b[2]`. */
const pathOf = (parent: string, key: string | number) =>
  typeof key === "number"
    ? `${parent}[${key}]`
    : /^[A-Za-z_$][\w$]*$/.test(key)
      ? `${parent}.${key}`
      : `${parent}[${JSON.stringify(key.slice(0, 40))}]`;

const shorten = (path: string) => (path.length > 80 ? `${path.slice(0, 80)}…` : path);

/**
 * The first thing wrong with the shape of a JSON value, or undefined: nesting
 * deeper than `maxDepth` levels of objects and arrays, or a reserved key.
 * `name` names the value in the message (e.g. `metadata`). Iterative: safe on
 * any depth.
 */
export function jsonShapeProblem(value: unknown, name: string, maxDepth: number = maxJsonDepth): string | undefined {
  const pending: { item: unknown; depth: number; path: string }[] = [{ item: value, depth: 1, path: name }];
  while (pending.length > 0) {
    const { item, depth, path } = pending.pop()!;
    if (!isContainer(item)) continue;
    if (depth > maxDepth)
      return `${name} nests objects and arrays deeper than ${maxDepth} levels (at ${shorten(path)}); flatten it`;
    if (Array.isArray(item)) {
      item.forEach((inner, index) => pending.push({ item: inner, depth: depth + 1, path: pathOf(path, index) }));
      continue;
    }
    for (const key of Object.keys(item)) {
      if (reservedKeys.includes(key))
        return `${name} must not use the key ${JSON.stringify(key)} (at ${shorten(path)}); the keys ${reservedKeys.map((reserved) => JSON.stringify(reserved)).join(" and ")} are reserved`;
      pending.push({ item: (item as Record<string, unknown>)[key], depth: depth + 1, path: pathOf(path, key) });
    }
  }
  return undefined;
}
