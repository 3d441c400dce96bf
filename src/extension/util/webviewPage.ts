import * as vscode from 'vscode';
import { nodeCrypto } from '../../kernel/nodeCrypto';

/**
 * A webview's page, one home for its Content-Security-Policy: nothing loads but the bundle's own script and
 * stylesheets from `assets` (each with a fresh nonce), codicons, and images from there or data: URLs.
 */
export function webviewPage(webview: vscode.Webview, assets: vscode.Uri, page: { bundle: string; title: string; loading: string }): string {
  const nonce = nodeCrypto().randomBytes(18).toString('base64');
  const asset = (name: string) => webview.asWebviewUri(vscode.Uri.joinPath(assets, name)).toString();
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource} 'nonce-${nonce}'`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" nonce="${nonce}" href="${asset('codicon.css')}">
<link rel="stylesheet" nonce="${nonce}" href="${asset(`${page.bundle}.css`)}">
<title>${page.title}</title>
</head>
<body>
<div id="app" aria-busy="true">${page.loading}</div>
<script nonce="${nonce}" src="${asset(`${page.bundle}.js`)}"></script>
</body>
</html>`;
}
