/** One sample of a Prometheus text exposition: `name{labels} value`. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A scraped /metrics page: every sample, and each metric family's declared type. */
export interface Scrape {
  samples: MetricSample[];
  types: Map<string, string>;
}

const sampleLine = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/;
const labelPair = /(\w+)="((?:[^"\\]|\\.)*)"/g;

/** Parses the Prometheus text format (version 0.0.4), as prom-client writes it. */
export function parseMetrics(text: string): Scrape {
  const samples: MetricSample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type !== null) types.set(type[1]!, type[2]!);
    const sample = sampleLine.exec(line);
    if (line.startsWith("#") || sample === null) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (sample[2] ?? "").matchAll(labelPair)) labels[key!] = value!;
    samples.push({ name: sample[1]!, labels, value: Number(sample[3]) });
  }
  return { samples, types };
}

/** Fetches and parses a /metrics endpoint. */
export async function scrapeMetrics(url: string | URL): Promise<Scrape> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.toString()} answered HTTP ${response.status}`);
  return parseMetrics(await response.text());
}
