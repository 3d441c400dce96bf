// The real VS Code builds the e2e pass runs in, oldest first (test/e2e/profiles.ts describes each).
export const E2E_PROFILES = ['vscode-1.105', 'vscode-1.139'];
