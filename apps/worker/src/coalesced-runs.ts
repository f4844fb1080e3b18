/**
 * Runs a task one at a time: asked while a run is under way, it runs once more right after it, however
 * often it was asked meanwhile, so a burst of triggers costs two runs and none overlap. `may` is asked
 * before every run, the one asked for again included (false once its owner stops). The task catches and
 * reports its own failures: nothing awaits a run asked for by `request`, so a rejection would go unhandled.
 */
export class CoalescedRuns {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly task: () => Promise<void>,
    private readonly may: () => boolean,
  ) {}

  /** The run under way, if any. */
  get underWay(): Promise<void> | undefined {
    return this.running;
  }

  /** Runs the task now, or once more right after the run under way. */
  request(): void {
    if (!this.may()) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.task().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.request();
      }
    });
  }
}
