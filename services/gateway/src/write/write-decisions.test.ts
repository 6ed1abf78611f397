import { test } from "node:test";
import assert from "node:assert/strict";
import { ContextHubError, contentHash } from "@context-hub/common";
import type { Generated } from "../clients/generation-client.js";
import type { WriteStoreClient } from "../clients/write-store-client.js";
import type { Principal } from "../principal.js";
import { storeBatch } from "./store-batch.js";
import { storeEntry } from "./store-entry.js";
import { updateEntries } from "./update-entries.js";
import { decideWrite, rulesFor, writeRules, type WriteOperation, type WriteSituation } from "./write-decisions.js";
import type { WriteDeps } from "./write-steps.js";
import type { EntryChange, ItemOutcome, NewEntryInput, ResolvedIdempotency, WriteAck } from "../write-types.js";

const principal: Principal = { tenant: "acme", subject: "a1", groups: [], scopes: ["context:write"] };
const booleans = [false, true] as const;

/** Every situation a write can be in: a replay always carries its key; a single store is always atomic. */
function everySituation(): WriteSituation[] {
  const operations: WriteOperation[] = ["store", "storeBatch", "update"];
  return operations.flatMap((operation) =>
    booleans.flatMap((replay) =>
      booleans.flatMap((keyed) =>
        booleans.flatMap((atomic) =>
          booleans.flatMap((earlyGeneration) =>
            (replay && !keyed) || (operation === "store" && !atomic)
              ? []
              : [{ operation, replay, keyed, atomic, earlyGeneration }],
          ),
        ),
      ),
    ),
  );
}

test("the decision table has exactly one rule for every situation a write can be in, and every rule is used", () => {
  const used = new Set<number>();
  for (const situation of everySituation()) {
    const rules = rulesFor(situation);
    assert.equal(rules.length, 1, `${JSON.stringify(situation)} matches ${rules.length} rules`);
    used.add(writeRules.indexOf(rules[0]!));
  }
  assert.equal(used.size, writeRules.length, "a rule no situation reaches is dead");
  assert.throws(
    () => decideWrite({ operation: "store", replay: true, keyed: false, atomic: true, earlyGeneration: false }),
    /no write rule covers/,
  );
});

test("a commit without generation happens only where a fold or a replay can answer it, and never for an update (I-4)", () => {
  for (const situation of everySituation()) {
    const plan = decideWrite(situation);
    if (plan.replayFirst) assert.equal(situation.replay, true, JSON.stringify(situation));
    if (situation.operation === "update") assert.equal(plan.onVanished, "not-applicable");
    if (plan.precheck === "none" && situation.operation !== "update")
      assert.equal(plan.generate, "every-entry", JSON.stringify(situation));
  }
});

/** What the fake store does: which texts have a duplicate, and whether a commit without generation finds its target gone. */
interface StoreScript {
  vanished: boolean;
}

/** A store and generation workers that follow `script` and log every call, in order. */
function fakeDeps(script: StoreScript) {
  const trace: string[] = [];
  const signals: (AbortSignal | undefined)[] = [];
  const ack = (id: string): WriteAck => ({
    id,
    threadId: "t",
    version: 1,
    contentHash: "h",
    deduplicated: false,
    createdAt: "",
    updatedAt: "",
    previouslyDeleted: false,
    trustState: "unverified",
    trustReasons: [],
  });
  const vanished = () => new ContextHubError("DUPLICATE_VANISHED", "the duplicate is gone");
  const store = {
    async findDuplicate(_principal: Principal, entry: NewEntryInput) {
      trace.push("precheck");
      return entry.text === "again" ? "dup" : "";
    },
    async commit(_principal: Principal, entry: NewEntryInput, generated: Generated | undefined, idempotency: unknown) {
      trace.push(`commit(${generated === undefined ? "-" : "G"}${idempotency === undefined ? "" : ",keyed"})`);
      if (generated === undefined && script.vanished) throw vanished();
      return ack(entry.text);
    },
    async commitBatch(
      _principal: Principal,
      entries: readonly NewEntryInput[],
      generated: readonly (Generated | undefined)[],
      atomic: boolean,
      idempotency: unknown,
    ) {
      trace.push(
        `commitBatch(${generated.map((item) => (item === undefined ? "-" : "G")).join("")},${atomic ? "atomic" : "each"}${idempotency === undefined ? "" : ",keyed"})`,
      );
      const gone = (index: number) => generated[index] === undefined && script.vanished;
      if (atomic && entries.some((_, index) => gone(index))) throw vanished();
      return entries.map(
        (entry, index): ItemOutcome<WriteAck> =>
          gone(index)
            ? { ok: false, error: { code: "DUPLICATE_VANISHED", message: "gone" } }
            : { ok: true, value: ack(entry.text) },
      );
    },
    async currentTexts() {
      trace.push("read");
      return [
        { id: "0190c2a4-0000-7000-8000-000000000001", contentHash: contentHash("old text"), source: "user" as const },
      ];
    },
    async update(
      _principal: Principal,
      changes: { change: EntryChange; sendText: boolean; generated: Generated | undefined }[],
    ) {
      trace.push(
        `update(${changes.map(({ change, sendText, generated }) => `${change.text !== undefined && sendText ? "T" : "-"}${generated === undefined ? "-" : "G"}`).join(" ")})`,
      );
      return changes.map((planned): ItemOutcome<WriteAck> => ({ ok: true, value: ack(planned.change.id) }));
    },
  } as unknown as WriteStoreClient;
  const deps: WriteDeps = {
    store,
    async generate(inputs, signal) {
      if (inputs.length === 0) return [];
      trace.push(`generate(${inputs.length})`);
      signals.push(signal);
      // Lets the pre-check and any fold run first, as a real worker call would.
      await new Promise((resolve) => setImmediate(resolve));
      return inputs.map(() => ({}) as Generated);
    },
  };
  return { deps, trace, signals };
}

const entry = (text: string): NewEntryInput => ({
  threadId: "t",
  source: "agent",
  text,
  metadata: undefined,
  tags: [],
  images: [],
  visibility: undefined,
});
const keyOf = (replay: boolean): ResolvedIdempotency => ({ key: "k", fingerprint: "f", replay });
const textChange = (text: string | undefined): EntryChange => ({
  id: "0190c2a4",
  expectedVersion: undefined,
  text,
  metadata: undefined,
  tags: undefined,
  images: undefined,
  visibility: undefined,
});

interface Scenario {
  name: string;
  situation: Omit<WriteSituation, "operation">;
  vanished: boolean;
  /** Store and update scenarios: the text written ("again" has a duplicate); batches write ["again", "new"]. */
  text?: string | undefined;
  expect: string[];
}

const storeScenarios: Scenario[] = [
  {
    name: "a new entry is checked, generated for, then committed",
    situation: { replay: false, keyed: false, atomic: true, earlyGeneration: false },
    vanished: false,
    text: "new",
    expect: ["precheck", "generate(1)", "commit(G)"],
  },
  {
    name: "a retransmit folds and generates nothing",
    situation: { replay: false, keyed: false, atomic: true, earlyGeneration: false },
    vanished: false,
    text: "again",
    expect: ["precheck", "commit(-)"],
  },
  {
    name: "a retransmit whose fold target vanished is generated for and inserted",
    situation: { replay: false, keyed: false, atomic: true, earlyGeneration: false },
    vanished: true,
    text: "again",
    expect: ["precheck", "commit(-)", "generate(1)", "commit(G)"],
  },
  {
    name: "early generation starts beside the pre-check",
    situation: { replay: false, keyed: false, atomic: true, earlyGeneration: true },
    vanished: false,
    text: "new",
    expect: ["generate(1)", "precheck", "commit(G)"],
  },
  {
    name: "early generation: a fold cancels the running generation",
    situation: { replay: false, keyed: false, atomic: true, earlyGeneration: true },
    vanished: false,
    text: "again",
    expect: ["generate(1)", "precheck", "commit(-)"],
  },
  {
    name: "early generation: a vanished fold target commits the generation already made",
    situation: { replay: false, keyed: false, atomic: true, earlyGeneration: true },
    vanished: true,
    text: "again",
    expect: ["generate(1)", "precheck", "commit(-)", "commit(G)"],
  },
  {
    name: "a replay is answered by the store with nothing generated",
    situation: { replay: true, keyed: true, atomic: true, earlyGeneration: false },
    vanished: false,
    text: "new",
    expect: ["commit(-,keyed)"],
  },
  {
    name: "a replay whose record vanished is written as a new entry",
    situation: { replay: true, keyed: true, atomic: true, earlyGeneration: false },
    vanished: true,
    text: "new",
    expect: ["commit(-,keyed)", "precheck", "generate(1)", "commit(G,keyed)"],
  },
];

for (const scenario of storeScenarios) {
  test(`store: ${scenario.name}`, async () => {
    const { deps, trace, signals } = fakeDeps({ vanished: scenario.vanished });
    const { situation } = scenario;
    const plan = decideWrite({ operation: "store", ...situation });
    await storeEntry(
      deps,
      plan,
      principal,
      entry(scenario.text!),
      situation.keyed ? keyOf(situation.replay) : undefined,
    );
    assert.deepEqual(trace, scenario.expect);
    const folded = scenario.text === "again" && !scenario.vanished;
    if (situation.earlyGeneration) {
      assert.deepEqual(
        signals.map((signal) => signal?.aborted),
        [folded],
        "the early generation is cancelled exactly when the entry folded",
      );
    }
  });
}

const batchScenarios: Scenario[] = [
  {
    name: "atomic: the retransmit generates nothing",
    situation: { replay: false, keyed: false, atomic: true, earlyGeneration: false },
    vanished: false,
    expect: ["precheck", "precheck", "generate(1)", "commitBatch(-G,atomic)"],
  },
  {
    name: "atomic: a vanished fold target regenerates the rest and commits the whole batch again",
    situation: { replay: false, keyed: false, atomic: true, earlyGeneration: false },
    vanished: true,
    expect: ["precheck", "precheck", "generate(1)", "commitBatch(-G,atomic)", "generate(1)", "commitBatch(GG,atomic)"],
  },
  {
    name: "non-atomic, no key: a vanished item is generated for and stored in a second call",
    situation: { replay: false, keyed: false, atomic: false, earlyGeneration: false },
    vanished: true,
    expect: ["precheck", "precheck", "generate(1)", "commitBatch(-G,each)", "generate(1)", "commitBatch(G,each)"],
  },
  {
    name: "non-atomic with a key: no pre-check, every entry generated, the store folds",
    situation: { replay: false, keyed: true, atomic: false, earlyGeneration: false },
    vanished: true,
    expect: ["generate(2)", "commitBatch(GG,each,keyed)"],
  },
  {
    name: "early generation: no pre-check, every entry generated",
    situation: { replay: false, keyed: false, atomic: true, earlyGeneration: true },
    vanished: false,
    expect: ["generate(2)", "commitBatch(GG,atomic)"],
  },
  {
    name: "a replay is answered by the store with nothing generated",
    situation: { replay: true, keyed: true, atomic: true, earlyGeneration: false },
    vanished: false,
    expect: ["commitBatch(--,atomic,keyed)"],
  },
  {
    name: "an atomic replay whose record vanished is written anew, recovering its vanished fold target too",
    situation: { replay: true, keyed: true, atomic: true, earlyGeneration: false },
    vanished: true,
    expect: [
      "commitBatch(--,atomic,keyed)",
      "precheck",
      "precheck",
      "generate(1)",
      "commitBatch(-G,atomic,keyed)",
      "generate(1)",
      "commitBatch(GG,atomic,keyed)",
    ],
  },
  {
    name: "a non-atomic replay returns the store's per-item outcomes as they are",
    situation: { replay: true, keyed: true, atomic: false, earlyGeneration: false },
    vanished: true,
    expect: ["commitBatch(--,each,keyed)"],
  },
];

for (const scenario of batchScenarios) {
  test(`storeBatch: ${scenario.name}`, async () => {
    const { deps, trace } = fakeDeps({ vanished: scenario.vanished });
    const { situation } = scenario;
    const plan = decideWrite({ operation: "storeBatch", ...situation });
    const outcomes = await storeBatch(
      deps,
      plan,
      principal,
      [entry("again"), entry("new")],
      situation.atomic,
      situation.keyed ? keyOf(situation.replay) : undefined,
    );
    assert.deepEqual(trace, scenario.expect);
    assert.equal(outcomes.length, 2, "one outcome per entry, in order");
  });
}

const updateScenarios: (Scenario & { change: EntryChange })[] = [
  {
    name: "a changed text is read, regenerated and sent",
    situation: { replay: false, keyed: false, atomic: true, earlyGeneration: false },
    vanished: false,
    change: textChange("new text"),
    expect: ["read", "generate(1)", "update(TG)"],
  },
  {
    name: "an identical text is neither regenerated nor sent",
    situation: { replay: false, keyed: false, atomic: true, earlyGeneration: false },
    vanished: false,
    change: textChange("old text"),
    expect: ["read", "update(--)"],
  },
  {
    name: "a metadata-only change reads and generates nothing",
    situation: { replay: false, keyed: false, atomic: true, earlyGeneration: true },
    vanished: false,
    change: textChange(undefined),
    expect: ["update(--)"],
  },
  {
    name: "a replay sends the change as it came, generating nothing",
    situation: { replay: true, keyed: true, atomic: true, earlyGeneration: false },
    vanished: false,
    change: textChange("new text"),
    expect: ["update(T-)"],
  },
];

for (const scenario of updateScenarios) {
  test(`update: ${scenario.name}`, async () => {
    const { deps, trace } = fakeDeps({ vanished: scenario.vanished });
    const { situation } = scenario;
    const plan = decideWrite({ operation: "update", ...situation });
    await updateEntries(
      deps,
      plan,
      principal,
      [scenario.change],
      situation.atomic,
      situation.keyed ? keyOf(situation.replay) : undefined,
    );
    assert.deepEqual(trace, scenario.expect);
  });
}
