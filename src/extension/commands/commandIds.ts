/** Every command id the extension registers; package.json contributes exactly these (a test checks both ways). */
export const COMMANDS = {
  initialize: 'loopx.initialize',
  newGoal: 'loopx.newGoal',
  pauseGoal: 'loopx.pauseGoal',
  resumeGoal: 'loopx.resumeGoal',
  addTodo: 'loopx.addTodo',
  claimTodo: 'loopx.claimTodo',
  releaseTodo: 'loopx.releaseTodo',
  shipTodo: 'loopx.shipTodo',
  blockTodo: 'loopx.blockTodo',
  unblockTodo: 'loopx.unblockTodo',
  killTodo: 'loopx.killTodo',
  askGate: 'loopx.askGate',
  approveGate: 'loopx.approveGate',
  rejectGate: 'loopx.rejectGate',
  addEvidence: 'loopx.addEvidence',
  showEvidence: 'loopx.showEvidence',
  openArtifact: 'loopx.openArtifact',
  verifyLog: 'loopx.verifyLog',
  showStatus: 'loopx.showStatus',
  showQuota: 'loopx.showQuota',
  refresh: 'loopx.refresh',
  showLogs: 'loopx.showLogs',
  openBoard: 'loopx.openBoard',
} as const;

export type CommandId = (typeof COMMANDS)[keyof typeof COMMANDS];
