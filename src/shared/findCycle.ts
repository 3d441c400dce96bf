/**
 * The first cycle a depth-first walk from `starts` meets, as the nodes along it with the first repeated at the end
 * (a → b → a), or null. One walk for every dependency graph: goal-file `after` keys, the store's dependencies as an
 * apply would leave them, and the source's imports.
 */
export function findCycle<N>(starts: Iterable<N>, next: (node: N) => Iterable<N>): N[] | null {
  const state = new Map<N, 'open' | 'done'>();
  const stack: N[] = [];
  const visit = (node: N): N[] | null => {
    state.set(node, 'open');
    stack.push(node);
    for (const to of next(node)) {
      if (state.get(to) === 'open') return [...stack.slice(stack.indexOf(to)), to];
      if (!state.has(to)) {
        const cycle = visit(to);
        if (cycle) return cycle;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of starts) {
    if (state.has(node)) continue;
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}
