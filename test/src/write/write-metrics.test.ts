import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { useFakeProviderHub } from "../support/fake-provider-hub.js";
import { memoryBackend } from "../support/hub-backends.js";
import { callTool, failureLine } from "../support/mcp.js";
import { scrapeMetrics, type MetricSample } from "../support/prometheus.js";

/**
 * Write latency per stage is a Prometheus histogram in seconds, labelled by
 * stage and outcome only, on the gateway's /metrics: successful writes fill
 * every stage's "ok" series, and a failed leg its stage's "error" series.
 */

const metric = "contexthub_write_stage_seconds";
const stages = ["validate", "dedup_check", "embed", "summarize", "commit", "total"] as const;
const providerTimeoutMs = 800;

describe("write latency per stage on the gateway's /metrics", () => {
  const context = useFakeProviderHub(memoryBackend, {
    EMBEDDER_TIMEOUT_MS: String(providerTimeoutMs),
    EMBEDDER_MAX_RETRIES: "0",
    SUMMARIZER_MAX_RETRIES: "0",
  });

  test("successful and failed writes: _bucket, _sum and _count per stage and outcome, in seconds, with no other labels", async () => {
    const { fakes, hub } = context;
    const write = (index: number) =>
      callTool(hub.client, "store_context", {
        thread_id: "metrics",
        source: "agent",
        text: `Glacier survey ${index}: the snout retreated ${index + 11} metres since spring.`,
      });
    const successes = 3;
    for (let index = 0; index < successes; index++) assert.notEqual((await write(index)).isError, true, "stored");
    fakes.modes.embed = "hang";
    assert.match(failureLine(await write(100)), /^EMBEDDER_UNAVAILABLE: embedding failed/);
    fakes.reset();
    fakes.modes.summary = "fail";
    assert.match(failureLine(await write(101)), /^SUMMARIZER_UNAVAILABLE: summary failed/);
    fakes.reset();

    const { samples, types } = await scrapeMetrics(new URL("/metrics", hub.hub.url));
    assert.equal(types.get(metric), "histogram");
    const family = samples.filter((sample) => sample.name.startsWith(`${metric}_`));
    for (const sample of family) {
      const expected = sample.name === `${metric}_bucket` ? ["le", "outcome", "stage"] : ["outcome", "stage"];
      assert.deepEqual(
        Object.keys(sample.labels).sort(),
        expected,
        `${sample.name}{${JSON.stringify(sample.labels)}}: stage and outcome only`,
      );
      assert.ok(
        [`${metric}_bucket`, `${metric}_sum`, `${metric}_count`].includes(sample.name),
        `unexpected series ${sample.name}`,
      );
    }

    const series = (stage: string, outcome: string) => {
      const of = (suffix: string) =>
        family.filter(
          (sample) =>
            sample.name === `${metric}_${suffix}` && sample.labels.stage === stage && sample.labels.outcome === outcome,
        );
      const [sum] = of("sum");
      const [count] = of("count");
      const buckets = of("bucket");
      assert.ok(
        sum !== undefined && count !== undefined && buckets.length > 0,
        `${stage}/${outcome}: _bucket, _sum and _count are all there`,
      );
      assertCumulative(buckets, count.value, `${stage}/${outcome}`);
      return { sum: sum.value, count: count.value };
    };

    for (const stage of stages) {
      const ok = series(stage, "ok");
      assert.ok(ok.count >= successes, `${stage}/ok counted every successful write: ${ok.count}`);
      // Seconds: a handful of fast writes take more than nothing and far less than five seconds in all.
      assert.ok(ok.sum > 0 && ok.sum < 5, `${stage}/ok sum ${ok.sum} is plausible in seconds`);
    }
    assert.equal(series("total", "ok").count, successes);
    assert.equal(series("commit", "ok").count, successes);
    assert.equal(series("total", "error").count, 2, "both failed writes");

    const embedError = series("embed", "error");
    assert.ok(embedError.count >= 1);
    // The failed embedding waited out the provider timeout: in seconds that is a little over 0.8, in milliseconds it would be over 800.
    assert.ok(
      embedError.sum >= providerTimeoutMs / 1000 && embedError.sum < 5,
      `embed/error sum ${embedError.sum} is the ${providerTimeoutMs} ms wait, in seconds`,
    );
    assert.ok(series("summarize", "error").count >= 1);
  });
});

/** Buckets are cumulative: never decreasing with `le`, ending at +Inf with the series' count. */
function assertCumulative(buckets: MetricSample[], count: number, what: string) {
  const sorted = [...buckets].sort((a, b) => Number(a.labels.le) - Number(b.labels.le));
  assert.equal(sorted.at(-1)?.labels.le, "+Inf", `${what}: the last bucket is +Inf`);
  assert.equal(sorted.at(-1)?.value, count, `${what}: +Inf holds every observation`);
  sorted.forEach((bucket, index) =>
    assert.ok(
      index === 0 || bucket.value >= sorted[index - 1]!.value,
      `${what}: bucket le=${bucket.labels.le} is cumulative`,
    ),
  );
}
