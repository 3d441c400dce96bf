import { type ReducersOf } from '../events/reducerKit';

type TurnKind = 'runner.started' | 'runner.stopped' | 'turn.started' | 'turn.configured' | 'turn.finished';

/** The state changes of turn and runner events, spread into the kernel's reducers (events/log.ts). */
export const turnReducers: ReducersOf<TurnKind> = {
  // Nothing but the agent's last-seen (every event records it): doctor reads runners from these events.
  'runner.started': () => {},
  'runner.stopped': () => {},
  'turn.started': (db, e) => {
    const d = e.data;
    db.prepare(
      `INSERT INTO turns (id, num, goal_id, todo_id, agent, host, route, prompt_path, start_seq, started_at, deadline_at, role)
        VALUES (?, ?, ?, ?, ?, ?, 'ready_for_host', ?, ?, ?, ?, ?)`,
    ).run(d.id, d.num, e.goalId, e.todoId, d.agent, d.host, d.promptPath, e.seq, e.at, d.deadlineAt ?? null, d.role ?? 'implement');
  },
  // Read from the log itself when asked (turnConfig.ts recordedTurnConfig): no table holds it.
  'turn.configured': () => {},
  'turn.finished': (db, e) => {
    const d = e.data;
    const u = d.usage;
    db.prepare(
      `UPDATE turns SET ended_at = ?, result_kind = ?, exit_code = ?, spent = ?, end_seq = ?, input_tokens = ?, output_tokens = ?,
        cached_tokens = ?, cache_write_tokens = ?, cost_usd = ?, cost_source = ?, usage_model = ? WHERE id = ?`,
    ).run(
      e.at,
      d.resultKind,
      d.exitCode,
      d.spent ? 1 : 0,
      e.seq,
      u?.inputTokens ?? null,
      u?.outputTokens ?? null,
      u?.cachedTokens ?? null,
      u?.cacheWriteTokens ?? null,
      u?.costUsd ?? null,
      u?.costSource ?? null,
      u?.model ?? null,
      d.id,
    );
  },
};
