import { describe, expect, it, vi } from 'vitest';

// Only module-level code runs here (icons built at import time): any vscode member will do.
vi.mock('vscode', () => {
  const anything: object = new Proxy(function stub() {}, { get: () => anything, construct: () => ({}), apply: () => anything });
  return new Proxy({}, { has: (_, key) => key !== 'then', get: (_, key) => (key === 'then' ? undefined : anything) });
});

describe('the command table', () => {
  it('names every command once (VS Code refuses to activate an extension that registers one twice)', async () => {
    const { COMMAND_TABLE } = await import('./registry');
    const ids = COMMAND_TABLE.map((def) => def.id);
    expect(ids.length).toBeGreaterThan(20);
    expect(ids.length).toBe(new Set(ids).size);
  });

  it('titles a command as the palette does, for the folder pick', async () => {
    const { titleOf } = await import('./registry');
    expect(titleOf('loopx.claimTodo')).toBe('Claim Todo');
    expect(titleOf('loopx.initialize')).toBe('Initialize');
  });
});
