/**
 * The charts' colours and strokes, one home for the webview (adopted as a constructed style sheet: CSSOM, which the
 * strict CSP allows) and the exported page (inside its <style>). VS Code's theme variables first (light, dark and
 * high contrast themes define the chart colours), with light defaults for a browser; PAGE_DARK overrides them there.
 */
export const CHART_CSS = `
svg.chart { width: 100%; max-width: 100%; height: auto; overflow: visible; font-family: inherit; }
svg.chart .axis, svg.chart .lane-label { fill: var(--vscode-descriptionForeground, #616161); font-size: 11px; }
svg.chart .lane-label { fill: var(--vscode-foreground, #1f1f1f); font-size: 12px; }
svg.chart .grid, svg.chart .tick { stroke: var(--vscode-charts-lines, rgba(128, 128, 128, 0.45)); stroke-width: 0.5; }
svg.chart .tick { stroke-dasharray: 2 3; }
svg.chart .hit { fill: transparent; }
svg.chart .hit:hover { fill: var(--vscode-list-hoverBackground, rgba(128, 128, 128, 0.15)); fill-opacity: 0.6; }
svg.chart .bar-label { fill: var(--vscode-editor-background, #ffffff); font-size: 11px; font-weight: 600; }
.c-working, .c-turn { fill: var(--vscode-charts-blue, #1a73e8); }
.c-person, .c-gate { fill: var(--vscode-charts-orange, #d9730d); }
.c-block { fill: var(--vscode-charts-yellow, #b58900); }
.c-world, .c-monitor { fill: var(--vscode-charts-purple, #8e44ad); }
.c-queued { fill: var(--vscode-charts-lines, #a0a0a0); fill-opacity: 0.55; }
.c-ship { fill: var(--vscode-charts-green, #2e8540); }
.c-handoff { fill: var(--vscode-terminal-ansiCyan, #11808a); }
.c-review { fill: var(--vscode-terminal-ansiMagenta, #bc3fbc); }
.c-fail { fill: var(--vscode-charts-red, #d1242f); }
.c-cost { fill: var(--vscode-charts-yellow, #b58900); }
.c-open { fill-opacity: 0.45; stroke: currentColor; stroke-dasharray: 3 2; stroke-width: 1; color: var(--vscode-foreground, #1f1f1f); }
.c-dense { fill-opacity: 0.85; }
.c-open-area { fill: var(--vscode-charts-blue, #1a73e8); fill-opacity: 0.18; }
.c-open-line { fill: none; stroke: var(--vscode-charts-blue, #1a73e8); stroke-width: 2; }
.c-done-line { fill: none; stroke: var(--vscode-charts-green, #2e8540); stroke-width: 2; }
.c-turn-line { fill: none; stroke: var(--vscode-charts-blue, #1a73e8); stroke-width: 1.5; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; vertical-align: middle; background: currentColor; }
.swatch.c-working, .swatch.c-turn { background: var(--vscode-charts-blue, #1a73e8); }
.swatch.c-person, .swatch.c-gate { background: var(--vscode-charts-orange, #d9730d); }
.swatch.c-block { background: var(--vscode-charts-yellow, #b58900); }
.swatch.c-world, .swatch.c-monitor { background: var(--vscode-charts-purple, #8e44ad); }
.swatch.c-queued { background: var(--vscode-charts-lines, #a0a0a0); }
.swatch.c-ship { background: var(--vscode-charts-green, #2e8540); }
.swatch.c-handoff { background: var(--vscode-terminal-ansiCyan, #11808a); }
.swatch.c-review { background: var(--vscode-terminal-ansiMagenta, #bc3fbc); }
.swatch.c-fail { background: var(--vscode-charts-red, #d1242f); }
.swatch.c-open-sample { background: transparent; border: 1px dashed var(--vscode-foreground, #1f1f1f); }
`;

/** The exported page in a dark browser: the same variables, dark values. */
export const PAGE_DARK = `
@media (prefers-color-scheme: dark) {
  :root { --vscode-foreground: #e0e0e0; --vscode-descriptionForeground: #a8a8a8; --vscode-editor-background: #1e1e1e;
    --vscode-charts-blue: #4da3ff; --vscode-charts-orange: #f0a04b; --vscode-charts-yellow: #e2c046; --vscode-charts-purple: #c18ee6;
    --vscode-charts-green: #5cbf6a; --vscode-charts-red: #f36b6b; --vscode-terminal-ansiCyan: #4fc8d1; --vscode-charts-lines: rgba(200, 200, 200, 0.4); }
}
`;
