/**
 * The platform create requests this process has in flight, so that recording outcomes can wait
 * for them: "send first, record after". Posts prepared ahead of their second send their creates
 * together at the due time; if each outcome write went out as soon as its own answer came, those
 * writes would compete with the creates still under way (for the CPU, the sockets and DynamoDB)
 * and push later posts past their second. Waiting is safe: the "sent" marker is already durable, so
 * a crash before an outcome is written is settled by looking the post up (publish-post.ts).
 *
 * A Lambda instance runs one invocation at a time, so on AWS this waits at most for the other
 * creates of the same batch; `settled` is bounded all the same, so a steady stream of creates can
 * delay an outcome by `maxWaitMs` at most.
 */
export class CreatesInFlight {
  private count = 0;
  private idle: Promise<void> | null = null;
  private resolveIdle: (() => void) | null = null;

  /** A create request goes out now; call what this returns once its answer (or failure) is in. */
  begin(): () => void {
    this.count++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.count--;
      if (this.count === 0 && this.resolveIdle) {
        this.resolveIdle();
        this.idle = null;
        this.resolveIdle = null;
      }
    };
  }

  /** Resolves once no create is in flight, or after `maxWaitMs`, whichever comes first. */
  settled(maxWaitMs: number, sleep: (ms: number) => Promise<void>): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    this.idle ??= new Promise((resolve) => {
      this.resolveIdle = resolve;
    });
    return Promise.race([this.idle, sleep(maxWaitMs)]);
  }
}
