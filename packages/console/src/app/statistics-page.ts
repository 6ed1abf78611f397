/** Counts from /statistics, with a bar chart drawn in SVG. */
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
  api<Statistics>("GET", "/statistics").then(
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
      ),
    (error: unknown) => replace(view, h("h1", {}, "Statistics"), problemBox(error)),
  );
}
