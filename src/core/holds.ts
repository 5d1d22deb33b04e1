// A count of holders that each let go once: background work waits while anything holds it (an add
// or sync of sources, a recall in flight) and is told when the last holder lets go.

export class Holds {
  private count = 0;

  /** `onFree` runs each time the last holder lets go. */
  constructor(private readonly onFree: () => void) {}

  get held(): boolean {
    return this.count > 0;
  }

  /** Holds until the returned function is called; calling it again does nothing. */
  take(): () => void {
    this.count++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.count === 0) this.onFree();
    };
  }
}
