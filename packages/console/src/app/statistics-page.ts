/** Counts from /statistics, with a bar chart and the last 30 days' activity drawn in SVG. */
import { api } from "./api.js";
import { h, replace, svg, when } from "./dom.js";
import { loading, problemBox } from "./views.js";

interface Statistics {
  entries: number;
  threads: number;
  user_entries: number;
  agent_entries: number;
  multimodal_entries: number;
  images: number;
  chunks: number;
  text_bytes: number;
  owned_entries: number;
  oldest_at: string | null;
  newest_at: string | null;
  daily: DailyActivity[];
}

interface DailyActivity {
  date: string;
  created: number;
  created_by_users: number;
  created_by_agents: number;
  by_trust_state: { unverified: number; verified: number; quarantined: number; rejected: number };
  writes: number;
}

/** How many days of activity the page shows. */
const daysShown = 30;

/** One stacked part of a daily chart: its label and its value on each day. */
export interface DailySeries {
  label: string;
  values: number[];
}

/**
 * Columns per day, each stacking `series` in order (the first at the bottom), with the first and last dates under
 * the axis, a legend, and the totals of each series in the label screen readers read.
 */
export function dailyChart(title: string, dates: readonly string[], series: readonly DailySeries[]): HTMLElement {
  const width = 620;
  const plotHeight = 140;
  const left = 36;
  const columnWidth = (width - left - 8) / Math.max(1, dates.length);
  const totals = dates.map((_, day) => series.reduce((sum, part) => sum + (part.values[day] ?? 0), 0));
  const largest = Math.max(1, ...totals);
  const scale = (value: number) => (plotHeight * value) / largest;
  const columns = dates.map((date, day) => {
    let top = plotHeight + 4;
    return svg(
      "g",
      {},
      svg("title", {}, `${date}: ${series.map((part) => `${part.label} ${part.values[day] ?? 0}`).join(", ")}`),
      series.map((part, index) => {
        const value = part.values[day] ?? 0;
        const height = scale(value);
        top -= height;
        return value === 0
          ? null
          : svg("rect", {
              class: `series-${index}`,
              x: (left + day * columnWidth + 1).toFixed(1),
              y: top.toFixed(1),
              width: Math.max(1, columnWidth - 2).toFixed(1),
              height: Math.max(1, height).toFixed(1),
            });
      }),
    );
  });
  const described = series
    .map((part) => `${part.label} ${part.values.reduce((sum, value) => sum + value, 0)}`)
    .join(", ");
  return h(
    "figure",
    {},
    svg(
      "svg",
      {
        class: "chart",
        role: "img",
        viewBox: `0 0 ${width} ${plotHeight + 28}`,
        width,
        height: plotHeight + 28,
        "aria-label": `${title}, ${dates[0] ?? ""} to ${dates.at(-1) ?? ""}: ${described}`,
      },
      svg("title", {}, title),
      svg("line", { x1: left, y1: plotHeight + 4, x2: width - 8, y2: plotHeight + 4 }),
      svg("text", { x: 0, y: 14 }, String(largest)),
      svg("text", { x: 0, y: plotHeight + 4 }, "0"),
      columns,
      svg("text", { x: left, y: plotHeight + 22 }, dates[0] ?? ""),
      svg("text", { x: width - 8, y: plotHeight + 22, "text-anchor": "end" }, dates.at(-1) ?? ""),
    ),
    h(
      "ul",
      { class: "legend" },
      series.map((part, index) =>
        h("li", {}, h("span", { class: `swatch series-${index}`, "aria-hidden": "true" }), part.label),
      ),
    ),
  );
}

/** A horizontal bar chart of `bars`, labelled, with a text description for screen readers. */
export function barChart(title: string, bars: [string, number][]): SVGElement {
  const width = 560;
  const labelWidth = 170;
  const rowHeight = 28;
  const largest = Math.max(1, ...bars.map(([, value]) => value));
  const height = bars.length * rowHeight + 8;
  return svg(
    "svg",
    {
      class: "chart",
      role: "img",
      viewBox: `0 0 ${width} ${height}`,
      width,
      height,
      "aria-label": `${title}: ${bars.map(([label, value]) => `${label} ${value}`).join(", ")}`,
    },
    svg("title", {}, title),
    bars.map(([label, value], index) => {
      const y = index * rowHeight + 4;
      const barWidth = Math.round(((width - labelWidth - 60) * value) / largest);
      return svg(
        "g",
        {},
        svg("text", { x: 0, y: y + 17 }, label),
        svg("rect", { x: labelWidth, y, width: Math.max(barWidth, value > 0 ? 2 : 0), height: rowHeight - 8 }),
        svg("text", { x: labelWidth + barWidth + 6, y: y + 17 }, String(value)),
      );
    }),
  );
}

export function statisticsPage(view: HTMLElement): void {
  replace(view, h("h1", {}, "Statistics"), loading());
  api<Statistics>("GET", "/statistics", { query: { days: daysShown } }).then(
    ({ body: stats }) =>
      replace(
        view,
        h("h1", {}, "Statistics"),
        h(
          "dl",
          { class: "meta" },
          (
            [
              ["Entries", stats.entries],
              ["Threads", stats.threads],
              ["Chunks", stats.chunks],
              ["Text bytes", stats.text_bytes],
              ["Images", stats.images],
              ["Oldest entry", when(stats.oldest_at)],
              ["Newest entry", when(stats.newest_at)],
            ] as [string, string | number][]
          ).flatMap(([name, value]) => [h("dt", {}, name), h("dd", {}, String(value))]),
        ),
        h("h2", {}, "Entries at a glance"),
        barChart("Entries at a glance", [
          ["From people", stats.user_entries],
          ["From agents", stats.agent_entries],
          ["With images", stats.multimodal_entries],
          ["Owned by you", stats.owned_entries],
        ]),
        ...activityCharts(stats.daily),
      ),
    (error: unknown) => replace(view, h("h1", {}, "Statistics"), problemBox(error)),
  );
}

/** The daily charts: entries created by source and by trust state, and writes. */
function activityCharts(daily: readonly DailyActivity[]): HTMLElement[] {
  const dates = daily.map((day) => day.date);
  const of = (pick: (day: DailyActivity) => number) => daily.map(pick);
  return [
    h("h2", {}, `Entries created, last ${daily.length} days`),
    dailyChart("Entries created per day, by source", dates, [
      { label: "From people", values: of((day) => day.created_by_users) },
      { label: "From agents", values: of((day) => day.created_by_agents) },
    ]),
    dailyChart("Entries created per day, by trust state now", dates, [
      { label: "Verified", values: of((day) => day.by_trust_state.verified) },
      { label: "Unverified", values: of((day) => day.by_trust_state.unverified) },
      { label: "Quarantined", values: of((day) => day.by_trust_state.quarantined) },
      { label: "Rejected", values: of((day) => day.by_trust_state.rejected) },
    ]),
    h("h2", {}, `Writes, last ${daily.length} days`),
    dailyChart("Writes per day (stores, updates, restores)", dates, [
      { label: "Writes", values: of((day) => day.writes) },
    ]),
  ];
}
