// Small statistics for the benches: quantiles and least-squares slopes.

/** The q-quantile of samples (nearest rank); NaN for none. */
export function quantile(samples, q) {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export const round = (value, digits = 2) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : null);

/** p50/p95/p99/max/mean of latencies in ms. */
export function latencySummary(samples) {
  return {
    count: samples.length,
    p50: round(quantile(samples, 0.5)),
    p95: round(quantile(samples, 0.95)),
    p99: round(quantile(samples, 0.99)),
    max: round(samples.reduce((a, b) => Math.max(a, b), 0)),
    mean: round(samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length)),
  };
}

/** Least-squares slope of y over x (points [x, y]); 0 for fewer than two distinct x. */
export function slope(points) {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((sum, [x]) => sum + x, 0) / n;
  const my = points.reduce((sum, [, y]) => sum + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}
