/** Disposables in the style of VS Code's own lifecycle.ts: nothing registered is dropped on the floor. */
export interface IDisposable {
  dispose(): void;
}

export class DisposableStore implements IDisposable {
  private readonly items = new Set<IDisposable>();
  private disposed = false;

  add<T extends IDisposable>(item: T): T {
    if (this.disposed) item.dispose();
    else this.items.add(item);
    return item;
  }

  /** Disposes what was added so far; the store stays usable. */
  clear(): void {
    const items = [...this.items];
    this.items.clear();
    for (const item of items.reverse()) item.dispose();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const errors: unknown[] = [];
    for (const item of [...this.items].reverse()) {
      try {
        item.dispose();
      } catch (error) {
        errors.push(error);
      }
    }
    this.items.clear();
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'several disposables failed');
  }
}

export abstract class Disposable implements IDisposable {
  private readonly store = new DisposableStore();

  protected register<T extends IDisposable>(item: T): T {
    return this.store.add(item);
  }

  dispose(): void {
    this.store.dispose();
  }
}

/** Holds one disposable that is replaced over time (the open store, a timer); the old one is disposed. */
export class MutableDisposable<T extends IDisposable> implements IDisposable {
  private current: T | undefined;

  get value(): T | undefined {
    return this.current;
  }

  set value(next: T | undefined) {
    if (this.current === next) return;
    this.current?.dispose();
    this.current = next;
  }

  dispose(): void {
    this.value = undefined;
  }
}

export function toDisposable(fn: () => void): IDisposable {
  let done = false;
  return {
    dispose() {
      if (!done) {
        done = true;
        fn();
      }
    },
  };
}
