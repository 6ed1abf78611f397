// A self-contained HTML report: tables and inline SVG line charts, no scripts, no external assets.

const palette = [
  "#1f77b4",
  "#d62728",
  "#2ca02c",
  "#ff7f0e",
  "#9467bd",
  "#8c564b",
  "#e377c2",
  "#7f7f7f",
  "#bcbd22",
  "#17becf",
  "#393b79",
  "#637939",
];
const escape = (text) =>
  String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
const nice = (value) =>
  Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 10 ? value.toFixed(1) : value.toFixed(2);

/** A line chart of `series` ([{ name, points: [[x, y]] }]) as an SVG element. */
export function lineChart(series, { title, xLabel = "s", yLabel = "", width = 900, height = 280, marks = [] }) {
  const all = series.flatMap((line) => line.points).filter(([, y]) => y !== null && Number.isFinite(y));
  if (all.length === 0) return `<p><em>${escape(title)}: no data</em></p>`;
  const left = 60;
  const right = 170;
  const top = 28;
  const bottom = 36;
  const xMax = Math.max(...all.map(([x]) => x), 1);
  const yMax = Math.max(...all.map(([, y]) => y), 1e-9) * 1.08;
  const sx = (x) => left + (x / xMax) * (width - left - right);
  const sy = (y) => height - bottom - (y / yMax) * (height - top - bottom);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
  ];
  parts.push(`<text x="${left}" y="16" font-size="13" font-weight="bold">${escape(title)}</text>`);
  for (let i = 0; i <= 4; i++) {
    const y = (yMax * i) / 4;
    parts.push(
      `<line x1="${left}" x2="${width - right}" y1="${sy(y)}" y2="${sy(y)}" stroke="#ddd"/><text x="${left - 6}" y="${sy(y) + 4}" text-anchor="end">${nice(y)}</text>`,
    );
    const x = (xMax * i) / 4;
    parts.push(`<text x="${sx(x)}" y="${height - bottom + 16}" text-anchor="middle">${nice(x)}</text>`);
  }
  parts.push(
    `<text x="${(left + width - right) / 2}" y="${height - 6}" text-anchor="middle">${escape(xLabel)}</text><text x="14" y="${(top + height - bottom) / 2}" transform="rotate(-90 14 ${(top + height - bottom) / 2})" text-anchor="middle">${escape(yLabel)}</text>`,
  );
  for (const mark of marks)
    parts.push(
      `<line x1="${sx(mark.t)}" x2="${sx(mark.t)}" y1="${top}" y2="${height - bottom}" stroke="#000" stroke-dasharray="4 3"/><text x="${sx(mark.t) + 3}" y="${top + 10}">${escape(mark.label)}</text>`,
    );
  series.forEach((line, index) => {
    const color = palette[index % palette.length];
    const points = line.points.filter(([, y]) => y !== null && Number.isFinite(y));
    if (points.length > 0)
      parts.push(
        `<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${points.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(" ")}"/>`,
      );
    parts.push(
      `<rect x="${width - right + 10}" y="${top + index * 16}" width="10" height="10" fill="${color}"/><text x="${width - right + 24}" y="${top + index * 16 + 9}">${escape(line.name)}</text>`,
    );
  });
  parts.push("</svg>");
  return parts.join("");
}

/** An HTML table from rows of objects (columns from the first row). */
export function table(rows) {
  if (rows.length === 0) return "<p><em>none</em></p>";
  const columns = Object.keys(rows[0]);
  return `<table><thead><tr>${columns.map((c) => `<th>${escape(c)}</th>`).join("")}</tr></thead><tbody>${rows.map((row) => `<tr>${columns.map((c) => `<td>${escape(row[c] ?? "")}</td>`).join("")}</tr>`).join("")}</tbody></table>`;
}

/** The whole page: a title, a verdict line, then sections of HTML. */
export function page(title, verdict, sections) {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escape(title)}</title><style>
body{font-family:sans-serif;margin:24px;max-width:1000px}table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right;font-size:13px}th{background:#f3f3f3}td:first-child{text-align:left}
.pass{color:#176317;font-weight:bold}.fail{color:#b00;font-weight:bold}pre{background:#f6f6f6;padding:8px;overflow:auto;font-size:12px}</style></head><body>
<h1>${escape(title)}</h1><p class="${verdict.ok ? "pass" : "fail"}">${escape(verdict.text)}</p>
${sections.map(([heading, html]) => `<h2>${escape(heading)}</h2>${html}`).join("\n")}
</body></html>`;
}

/** Per-tool latency over time: the p95 of each window of `windowS` seconds. */
export function windowedSeries(samples, windowS, valueOf) {
  const byTool = new Map();
  for (const sample of samples) {
    const window = Math.floor(sample.t / windowS);
    const tool = byTool.get(sample.tool) ?? new Map();
    (tool.get(window) ?? tool.set(window, []).get(window)).push(sample);
    byTool.set(sample.tool, tool);
  }
  return [...byTool.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, windows]) => ({
      name,
      points: [...windows.entries()]
        .sort(([a], [b]) => a - b)
        .map(([window, group]) => [(window + 0.5) * windowS, valueOf(group)]),
    }));
}
