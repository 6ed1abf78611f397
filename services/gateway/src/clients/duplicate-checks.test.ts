import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ContextHubError,
  createGrpcClient,
  createGrpcServer,
  createLogger,
  type CallContext,
  type RunningGrpcServer,
} from "@context-hub/common";
import { commonV1, storeV1 } from "@context-hub/proto";
import { batchRetryMs, createDuplicateChecks, type DuplicateCheck } from "./duplicate-checks.js";
import type { EntriesServiceClient } from "./peers.js";

/**
 * The gateway's joined pre-checks against real gRPC stores: one that has
 * FindDuplicates, and an older one without it (as during a rolling upgrade),
 * which the gateway asks check by check.
 */

const logger = createLogger("duplicate-checks-test", "silent");

interface Seen {
  batches: number;
  singles: { subject: string; requestId: string }[];
}

/** A store answering only the pre-checks: each caller's duplicate is `dup-<subject>`; a caller without context:write is refused. */
async function startStore(
  withBatch: boolean,
  seen: Seen,
): Promise<{ server: RunningGrpcServer; client: EntriesServiceClient }> {
  const answer = (check: { principal?: commonV1.Principal | undefined }) => {
    if (!check.principal?.scopes.includes("context:write"))
      throw new ContextHubError("PERMISSION_DENIED", "this call needs the context:write scope");
    return `dup-${check.principal.subject}`;
  };
  const handlers: Record<string, (request: never, context: CallContext) => Promise<unknown>> = {
    async findDuplicate(request: storeV1.FindDuplicateRequest, context: CallContext) {
      seen.singles.push({ subject: request.principal?.subject ?? "", requestId: context.requestId });
      return { entryId: answer(request) };
    },
    async findDuplicates(request: storeV1.FindDuplicatesRequest) {
      seen.batches++;
      return {
        results: request.checks.map((check) => {
          try {
            return { entryId: answer(check) };
          } catch (error) {
            return { error: { code: (error as ContextHubError).code, message: (error as ContextHubError).message } };
          }
        }),
      };
    },
  };
  // The older store's contract simply lacks the method, so gRPC itself answers UNIMPLEMENTED.
  const service = withBatch
    ? storeV1.EntriesService
    : {
        ...storeV1.EntriesService,
        methods: storeV1.EntriesService.methods.filter((method) => method.name !== "FindDuplicates"),
      };
  const implementation = new Proxy(handlers, {
    get: (target, name: string) =>
      target[name] ??
      (async () => {
        throw new ContextHubError("INTERNAL", `${name} is not part of this test`);
      }),
  });
  const server = await createGrpcServer({ logger })
    .addService(service as typeof storeV1.EntriesService, implementation as never)
    .listen({ host: "127.0.0.1", port: 0 });
  const client = createGrpcClient(storeV1.EntriesService, {
    address: `127.0.0.1:${server.port}`,
    peer: "store",
    deadlineMs: 5_000,
  });
  return { server, client };
}

/** A check's answer, or its refusal as `CODE: message`. */
const outcomeOf = (settled: PromiseSettledResult<string>) =>
  settled.status === "fulfilled"
    ? settled.value
    : `${(settled.reason as ContextHubError).code}: ${(settled.reason as ContextHubError).message}`;

const writer = (subject: string) => ({
  tenant: "acme",
  subject,
  groups: [],
  scopes: ["context:read", "context:write"],
});
const checkOf = (principal: ReturnType<typeof writer>, requestId: string): DuplicateCheck => ({
  principal,
  threadId: "t",
  source: commonV1.Source.AGENT,
  contentHash: "h".repeat(64),
  requestId,
});

test("checks arriving together travel in one FindDuplicates call, each answered for its own caller", async () => {
  const seen: Seen = { batches: 0, singles: [] };
  const { server, client } = await startStore(true, seen);
  try {
    const check = createDuplicateChecks(client);
    const reader = { ...writer("rita"), scopes: ["context:read"] };
    const results = await Promise.allSettled([
      check(checkOf(writer("alice"), "r-alice")),
      check(checkOf(writer("bob"), "r-bob")),
      check(checkOf(reader, "r-rita")),
    ]);
    assert.deepEqual(results.map(outcomeOf), [
      "dup-alice",
      "dup-bob",
      "PERMISSION_DENIED: this call needs the context:write scope",
    ]);
    assert.deepEqual([seen.batches, seen.singles.length], [1, 0]);
  } finally {
    client.close();
    await server.shutdown();
  }
});

test("a store without FindDuplicates is asked check by check, under each check's request id, until the retry time", async () => {
  const seen: Seen = { batches: 0, singles: [] };
  const { server, client } = await startStore(false, seen);
  let attempts = 0;
  const counting = new Proxy(client, {
    get: (target, name) => {
      if (name === "findDuplicates") attempts++;
      return Reflect.get(target, name) as unknown;
    },
  });
  let clock = 0;
  try {
    const check = createDuplicateChecks(counting, () => clock);
    const reader = { ...writer("rita"), scopes: ["context:read"] };
    const round = () =>
      Promise.allSettled([
        check(checkOf(writer("alice"), "r-alice")),
        check(checkOf(writer("bob"), "r-bob")),
        check(checkOf(reader, "r-rita")),
      ]);

    const first = await round();
    assert.deepEqual(first.map(outcomeOf), [
      "dup-alice",
      "dup-bob",
      "PERMISSION_DENIED: this call needs the context:write scope",
    ]);
    assert.equal(attempts, 1, "the batch was tried once");
    assert.deepEqual(seen.singles.map((single) => `${single.subject} ${single.requestId}`).sort(), [
      "alice r-alice",
      "bob r-bob",
      "rita r-rita",
    ]);

    clock += batchRetryMs - 1;
    await round();
    assert.equal(attempts, 1, "not again before the retry time");
    clock += 1;
    await round();
    assert.equal(attempts, 2, "tried again once it has passed");
    assert.equal(seen.singles.length, 9);
  } finally {
    client.close();
    await server.shutdown();
  }
});
