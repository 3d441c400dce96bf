import type { BoardFilter } from '../../src/protocol/board';
import type { AttentionItem, BoardFolder, BoardSnapshot, Card, GoalSummary, ToWebview } from '../../src/protocol/boardProtocol';
import type { AnswerTo, BoardRequest, ToHost } from '../../src/protocol/boardSchemas';

interface VsCodeApi {
  postMessage(message: ToHost): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

type Answer = Extract<ToWebview, { requestId: number }>;

interface SavedState {
  filter: BoardFilter;
  openId: string | null;
}

/** A saved filter from an older build (or damaged) is dropped rather than trusted. */
function validFilter(value: unknown): BoardFilter | null {
  const f = value as Partial<BoardFilter> | null | undefined;
  if (!f || typeof f !== 'object') return null;
  const idOrNull = (v: unknown) => (typeof v === 'string' ? v : null);
  return { goalId: idOrNull(f.goalId), agent: idOrNull(f.agent), text: typeof f.text === 'string' ? f.text : '' };
}

/** The webview's copy of the board and the one channel to the host (requests carry ids; answers resolve them). */
export class BoardState {
  readonly vscode = acquireVsCodeApi();
  me = '';
  /** Clock skew between host and webview, so countdowns use the host's notion of now. */
  skewMs = 0;
  goals: GoalSummary[] = [];
  /** Every folder with a store, in a multi-root workspace (the goal selector spans them); else empty. */
  folders: BoardFolder[] = [];
  attention: AttentionItem[] = [];
  agents: string[] = [];
  readonly cards = new Map<string, Card>();
  filter: BoardFilter;
  private nextId = 1;
  private readonly waiting = new Map<number, (m: Answer) => void>();

  /** The card whose detail pane is open, if any. */
  openId: string | null;

  /** What VS Code keeps for this panel (getState/setState): across hidden tabs and, with the host's serializer, window reloads. */
  constructor() {
    const saved = this.vscode.getState() as Partial<SavedState> | undefined;
    this.filter = validFilter(saved?.filter) ?? { goalId: null, agent: null, text: '' };
    this.openId = typeof saved?.openId === 'string' ? saved.openId : null;
  }

  now(): number {
    return Date.now() + this.skewMs;
  }

  save(): void {
    this.vscode.setState({ filter: this.filter, openId: this.openId } satisfies SavedState);
  }

  applySnapshot(s: BoardSnapshot): void {
    this.me = s.me;
    this.skewMs = Date.parse(s.now) - Date.now();
    this.goals = s.goals;
    this.folders = s.folders ?? [];
    this.attention = s.attention;
    this.agents = s.agents;
    this.cards.clear();
    for (const card of s.cards) this.cards.set(card.id, card);
  }

  /** Sends a request and resolves with the host's answer for that request id (its type follows from the request's). */
  request<M extends BoardRequest>(message: M): Promise<AnswerTo<M['type']>> {
    const requestId = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(requestId, resolve as (m: Answer) => void);
      this.vscode.postMessage({ ...message, requestId } as ToHost);
    });
  }

  settle(message: Answer): void {
    const resolve = this.waiting.get(message.requestId);
    this.waiting.delete(message.requestId);
    resolve?.(message);
  }
}
