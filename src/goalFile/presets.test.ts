import { describe, expect, it } from 'vitest';
import { PRESETS, presetNamed, presetPath } from './presets';
import { parseGoalFile } from './parse';

describe('the presets', () => {
  it('are the four the issue names, each with a name that is its file', () => {
    expect(PRESETS.map((p) => p.name)).toEqual(['daily-triage', 'changelog-draft', 'pr-watch', 'keep-tests-green']);
    for (const preset of PRESETS) {
      expect(presetNamed(preset.name)).toBe(preset);
      expect(presetPath(preset)).toBe(`loopx/${preset.name}.goal.md`);
    }
  });

  for (const preset of PRESETS)
    it(`${preset.name}: a goal file without a single diagnostic, safe by construction`, () => {
      const parsed = parseGoalFile(preset.text);
      expect(parsed.diagnostics).toEqual([]);
      const spec = parsed.spec;
      if (!spec) throw new Error('no spec');
      expect(spec.title).toBe(preset.title);
      // A budget: turns per window, tokens and dollars.
      expect(spec.quota.turnsPerWindow).toBeGreaterThan(0);
      expect(spec.quota.tokensPerWindow).toBeGreaterThan(0);
      expect(spec.quota.dollarsPerWindow).toBeGreaterThan(0);
      expect(spec.quota.maxConcurrent).toBe(1);
      // Anything outward-facing waits on a gate a person answers: every todo says so.
      for (const todo of spec.todos) expect(todo.detail).toContain('ask with loopx gate ask, and do it only after the gate is approved');
      // The checks its work needs run only where a pattern allows them, and the tool behind them is named.
      for (const pattern of spec.allowedChecks ?? []) expect(preset.needs.map((n) => n.program)).toContain(pattern.split(' ')[0]);
      expect(preset.summary.length).toBeLessThan(200);
    });
});
