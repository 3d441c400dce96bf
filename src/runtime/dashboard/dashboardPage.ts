/**
 * The dashboard's one page: a shell that loads app.js and app.css under a strict Content-Security-Policy (this
 * response's nonce; nothing inline, nothing from elsewhere, no frames, no forms). Everything it shows, app.js puts in
 * as text. Its addresses are relative, so it also works below a path (a forwarded port behind a proxy).
 */
export function dashboardPage(nonce: string): { html: string; csp: string } {
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "manifest-src 'self'",
    "worker-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="theme-color" content="#1f6feb">
<title>LoopX dashboard</title>
<link rel="manifest" href="manifest.webmanifest">
<link rel="icon" href="icon.svg" type="image/svg+xml">
<link rel="apple-touch-icon" href="icon.png">
<link rel="stylesheet" href="app.css" nonce="${nonce}">
</head>
<body>
<noscript>The LoopX dashboard needs JavaScript.</noscript>
<div id="app" aria-live="polite"><p class="connecting">Connecting to loopx…</p></div>
<script src="app.js" nonce="${nonce}"></script>
</body>
</html>
`;
  return { html, csp };
}
