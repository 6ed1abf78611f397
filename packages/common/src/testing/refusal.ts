import assert from "node:assert/strict";
import { isContextHubError } from "../errors.js";

/** The message of the INVALID_ARGUMENT error `check` throws; fails the test when it throws anything else or nothing. */
export function refusalOf(check: () => unknown): string {
  try {
    check();
  } catch (error) {
    assert.ok(isContextHubError(error) && error.code === "INVALID_ARGUMENT", String(error));
    return error.message;
  }
  assert.fail("expected INVALID_ARGUMENT");
}

/** What `run` returns, or what it throws: a timed call that may refuse its input still does all its work. */
export function resultOrError(run: () => unknown): unknown {
  try {
    return run();
  } catch (error) {
    return error;
  }
}
