// Finds the metric names a PromQL expression reads, and checks them against what a /metrics endpoint exposes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chartDir, type KubeObject } from "./chart.js";

const keywords = new Set([
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "bool",
  "and",
  "or",
  "unless",
  "offset",
  "inf",
  "nan",
]);

/**
 * The metric names referenced by a PromQL expression (Grafana variables such
 * as $__rate_interval allowed). Label matchers, label lists, strings, ranges,
 * functions and keywords are not metric names.
 */
export function metricNamesIn(expression: string): Set<string> {
  let text = expression.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  text = text.replace(/\{[^}]*\}/g, " ");
  text = text.replace(/\[[^\]]*\]/g, " ");
  text = text.replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ");
  const names = new Set<string>();
  for (const match of text.matchAll(/(?<![\w$.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)) {
    const [, name, call] = match;
    if (name === undefined || call !== undefined || keywords.has(name.toLowerCase())) continue;
    names.add(name);
  }
  return names;
}

/** Every PromQL expression of the Grafana dashboard shipped with the chart (panels and variables). */
export function dashboardExpressions(): string[] {
  const dashboard = JSON.parse(readFileSync(join(chartDir, "dashboards", "context-hub.json"), "utf8")) as {
    panels: Array<{ targets?: Array<{ expr: string }> }>;
    templating: { list: Array<{ query?: unknown }> };
  };
  const expressions = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
  for (const variable of dashboard.templating.list) {
    const query =
      typeof variable.query === "object" && variable.query !== null
        ? (variable.query as { query?: string }).query
        : undefined;
    const inner = query?.match(/^label_values\((.*),\s*\w+\)$/)?.[1];
    if (inner !== undefined) expressions.push(inner);
  }
  return expressions;
}

/** Every alert and recording expression of the rendered PrometheusRule objects. */
export function ruleExpressions(objects: readonly KubeObject[]): Array<{ alert: string; expr: string }> {
  return objects
    .filter((object) => object.kind === "PrometheusRule")
    .flatMap(
      (object) =>
        (object.spec as { groups: Array<{ rules: Array<{ alert?: string; record?: string; expr: string }> }> }).groups,
    )
    .flatMap((group) =>
      group.rules.map((rule) => ({ alert: rule.alert ?? rule.record ?? "?", expr: String(rule.expr) })),
    );
}

/**
 * Series that come from outside the services by design: a pod cannot report
 * that it is not ready, so that alert reads kube-state-metrics.
 */
export const externalMetrics: ReadonlyMap<string, string> = new Map([["kube_pod_status_ready", "kube-state-metrics"]]);

/** Metric families declared by a Prometheus text exposition: name → type. */
export function declaredFamilies(exposition: string): Map<string, string> {
  const families = new Map<string, string>();
  for (const line of exposition.split("\n")) {
    const match = /^# TYPE (\S+) (\S+)/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) families.set(match[1], match[2]);
  }
  return families;
}

/** Whether a name read by a query (x, x_bucket, x_count, x_sum, x_total) is exposed by one of the families. */
export function isExposed(name: string, families: ReadonlyMap<string, string>): boolean {
  if (families.has(name)) return true;
  for (const suffix of ["_bucket", "_count", "_sum"]) {
    if (name.endsWith(suffix)) {
      const type = families.get(name.slice(0, -suffix.length));
      if (type === "histogram" || (type === "summary" && suffix !== "_bucket")) return true;
    }
  }
  if (name.endsWith("_total") && families.get(name.slice(0, -"_total".length)) === "counter") return true;
  return false;
}
