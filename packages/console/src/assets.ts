/**
 * The console's static assets as the gateway serves them: the page, its
 * stylesheet and the folder of compiled browser modules. They are strings
 * in a compiled module (not loose files) so that whatever ships a
 * workspace's dist/ ships the whole console.
 */

/** The folder holding the compiled browser modules (`main.js` and what it imports). */
export const consoleModulesUrl = new URL("./app/", import.meta.url);

/** The one HTML page: no inline script or style, so it runs under a strict Content-Security-Policy. */
export const indexHtml = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="referrer" content="no-referrer">
    <title>Context Hub console</title>
    <link rel="stylesheet" href="console.css">
    <script type="module" src="app/main.js"></script>
  </head>
  <body>
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <span class="brand">Context Hub</span>
      <nav id="nav" aria-label="Console pages"></nav>
    </header>
    <main id="main" tabindex="-1">
      <noscript>The console needs JavaScript.</noscript>
    </main>
  </body>
</html>
`;

/** The console's stylesheet. */
export const stylesheet = `
:root { color-scheme: light; --ink: #1d2330; --muted: #5b6475; --line: #d5d9e2; --accent: #1f5fbf; --bad: #a3261b;
  --good: #1d7a3a; --bg: #f7f8fa; font-family: system-ui, sans-serif; font-size: 15px; color: var(--ink); }
body { margin: 0; background: var(--bg); }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px 8px; }
.top { display: flex; flex-wrap: wrap; align-items: center; gap: 16px; padding: 8px 16px; background: #fff;
  border-bottom: 1px solid var(--line); }
.brand { font-weight: 700; }
nav ul { display: flex; flex-wrap: wrap; gap: 4px 12px; list-style: none; margin: 0; padding: 0; align-items: center; }
nav a[aria-current="page"] { font-weight: 700; text-decoration: none; }
main { max-width: 1040px; margin: 0 auto; padding: 16px; }
main:focus { outline: none; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
h1 { font-size: 1.5rem; }
form.stack, .card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 12px 16px;
  margin: 12px 0; }
form.stack > div, fieldset { margin: 8px 0; }
label { display: inline-block; margin-right: 8px; }
input[type="text"], input[type="password"], input[type="search"], textarea, select { font: inherit; padding: 4px 6px;
  border: 1px solid #98a0b0; border-radius: 4px; }
input[type="search"], input.wide, textarea { width: min(100%, 640px); box-sizing: border-box; }
button { font: inherit; padding: 4px 12px; border-radius: 4px; border: 1px solid #7a8394; background: #eef1f6;
  cursor: pointer; }
button.primary { background: var(--accent); color: #fff; border-color: var(--accent); }
button.danger { color: var(--bad); border-color: var(--bad); background: #fff; }
fieldset { border: 1px solid var(--line); border-radius: 4px; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; }
dl.meta dt { color: var(--muted); }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
.muted { color: var(--muted); }
.problem { border: 1px solid var(--bad); background: #fff4f2; color: var(--bad); border-radius: 6px; padding: 8px 12px;
  margin: 12px 0; }
.problem p { margin: 4px 0; }
.notice { border: 1px solid var(--good); background: #f1fbf4; border-radius: 6px; padding: 8px 12px; margin: 12px 0; }
.trust-verified { color: var(--good); }
.trust-quarantined, .trust-rejected { color: var(--bad); }
.hit { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; margin: 8px 0; }
.hit h2 { font-size: 1.1rem; margin: 0 0 4px; }
.explain { font-size: 0.9rem; color: var(--muted); }
.tags { display: flex; gap: 6px; list-style: none; padding: 0; margin: 0; flex-wrap: wrap; }
.tags li { background: #e7ecf5; border-radius: 10px; padding: 0 8px; }
.markdown { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 4px 16px;
  overflow-wrap: anywhere; }
pre { background: #f1f3f7; padding: 8px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
.diff { font-family: ui-monospace, monospace; font-size: 0.9rem; background: #fff; border: 1px solid var(--line);
  padding: 8px; white-space: pre-wrap; overflow-wrap: anywhere; }
.diff .added { background: #e3f7e8; display: block; }
.diff .removed { background: #fde7e4; display: block; }
.diff .same { display: block; color: var(--muted); }
.once { font-family: ui-monospace, monospace; width: min(100%, 640px); }
svg.chart text { font-size: 12px; fill: var(--ink); }
svg.chart rect { fill: var(--accent); }
svg.chart rect.series-1 { fill: #e0903a; }
svg.chart rect.series-2 { fill: #b3261e; }
svg.chart rect.series-3 { fill: #6b7280; }
svg.chart line { stroke: var(--line); }
.legend { display: flex; gap: 16px; list-style: none; padding: 0; font-size: 0.9rem; }
.legend .swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; background: var(--accent); }
.legend .series-1 { background: #e0903a; }
.legend .series-2 { background: #b3261e; }
.legend .series-3 { background: #6b7280; }
.images img { max-width: 100%; min-width: 24px; border: 1px solid var(--line); image-rendering: pixelated; }
`;
