/** "1 commit", "3 commits": a count and its noun, the noun singular for exactly one. */
export function countOf(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
