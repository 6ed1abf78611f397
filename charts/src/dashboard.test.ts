// The Grafana dashboard file: the panels operators look for, each query well formed and scoped by the dashboard's variables.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { chartDir } from "./chart.js";
import { metricNamesIn } from "./metric-names.js";

interface Panel {
  type: string;
  id: number;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { uid: string };
  targets?: Array<{ expr: string; refId: string; legendFormat: string }>;
  fieldConfig?: { defaults: { unit?: string } };
}
const dashboard = JSON.parse(readFileSync(join(chartDir, "dashboards", "context-hub.json"), "utf8")) as {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: Array<{ name: string }> };
};
const graphs = dashboard.panels.filter((panel) => panel.type !== "row");

test("the dashboard has a stable uid and the datasource, namespace and job variables", () => {
  assert.equal(dashboard.uid, "context-hub-overview");
  assert.deepEqual(
    dashboard.templating.list.map((variable) => variable.name),
    ["datasource", "namespace", "job"],
  );
});

test("the dashboard shows what operators watch: write latency by stage, throughput, tool errors, search by mode, providers, outbox lag, memory", () => {
  const byMetric = (metric: string, ...fragments: string[]) =>
    graphs.some((panel) =>
      (panel.targets ?? []).some(
        (target) => target.expr.includes(metric) && fragments.every((fragment) => target.expr.includes(fragment)),
      ),
    );
  for (const quantile of ["0.5", "0.95", "0.99"])
    assert.ok(
      byMetric("contexthub_write_stage_seconds_bucket", `histogram_quantile(${quantile}`, 'stage="total"'),
      `write p${quantile}`,
    );
  assert.ok(byMetric("contexthub_write_stage_seconds_bucket", "by (le, stage)"), "write latency by stage");
  assert.ok(byMetric("contexthub_write_stage_seconds_count", "rate("), "write throughput");
  assert.ok(byMetric("contexthub_tool_calls_total", 'outcome="error"', "by (tool)"), "errors by tool");
  assert.ok(byMetric("contexthub_search_seconds_bucket", "by (le, mode)"), "search latency by mode");
  assert.ok(byMetric("contexthub_provider_request_seconds", 'outcome="error"'), "provider failures");
  assert.ok(byMetric("process_resident_memory_bytes"), "memory");
  assert.ok(byMetric("contexthub_vector_outbox_lag_seconds", "max("), "vector outbox lag");
  assert.ok(byMetric("contexthub_vector_outbox_pending", "max("), "vector outbox backlog");
});

test("every panel query is scoped to the selected namespace and services, has a unit, and panels do not overlap", () => {
  const ids = new Set<number>();
  for (const panel of graphs) {
    assert.ok(!ids.has(panel.id), `panel id ${panel.id} is unique`);
    ids.add(panel.id);
    assert.equal(panel.datasource?.uid, "${datasource}");
    assert.ok(panel.fieldConfig?.defaults.unit, `${panel.title} has a unit`);
    for (const target of panel.targets ?? []) {
      assert.ok(metricNamesIn(target.expr).size > 0, `${panel.title}: ${target.expr}`);
      const selectors = target.expr.match(/\{[^}]*\}/g) ?? [];
      assert.ok(selectors.length > 0);
      for (const selector of selectors)
        assert.match(selector, /namespace="\$namespace", job=~"\$job"/, `${panel.title} is scoped`);
      assert.equal(
        (target.expr.match(/\(/g) ?? []).length,
        (target.expr.match(/\)/g) ?? []).length,
        `${panel.title}: balanced parentheses`,
      );
    }
  }
  const cells = new Set<string>();
  for (const panel of dashboard.panels) {
    for (let x = panel.gridPos.x; x < panel.gridPos.x + panel.gridPos.w; x++) {
      for (let y = panel.gridPos.y; y < panel.gridPos.y + panel.gridPos.h; y++) {
        const cell = `${x},${y}`;
        assert.ok(!cells.has(cell), `${panel.title} overlaps another panel at ${cell}`);
        cells.add(cell);
      }
    }
    assert.ok(panel.gridPos.x + panel.gridPos.w <= 24);
  }
});
