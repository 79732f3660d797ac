/**
 * Deliveries are handled in the background, one at a time per key (a pull request), so two events of one PR
 * never race (a label added while the welcome is being posted) while different PRs proceed side by side;
 * `idle()` resolves when nothing is queued (a clean stop, and tests).
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();
  private running = 0;
  private waiters: (() => void)[] = [];

  get pending(): number {
    return this.running;
  }

  push(key: string, job: () => Promise<void>): void {
    this.running++;
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(job).finally(() => {
      this.running--;
      if (this.tails.get(key) === next) this.tails.delete(key);
      if (this.running === 0) for (const w of this.waiters.splice(0)) w();
    });
    // The job reports its own failure; the chain must go on.
    this.tails.set(
      key,
      next.catch(() => {}),
    );
  }

  idle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
