/** Builds a value on first use. Keeps module start-up cheap: the CLI pays for what a command touches. */
export function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  let built = false;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
}
