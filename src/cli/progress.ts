// A progress bar on stderr, drawn only when stderr is a terminal (docs: CLI output rules), so pipes
// and logs never see carriage returns.
const BAR_WIDTH = 30;

export interface ProgressBar {
  update(done: number, total: number, note?: string): void;
  /** Clears the bar's line. */
  end(): void;
}

export function progressBar(label: string, unit: string, stream: NodeJS.WriteStream = process.stderr): ProgressBar {
  if (!stream.isTTY) return { update: () => undefined, end: () => undefined };
  let drawn = false;
  return {
    update(done, total, note) {
      const share = total > 0 ? Math.min(done / total, 1) : 1;
      const filled = Math.round(share * BAR_WIDTH);
      const tail = note ? ` ${note}` : "";
      stream.write(`\r\x1b[K${label} [${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${done}/${total} ${unit}${tail}`);
      drawn = true;
    },
    end() {
      if (drawn) stream.write("\r\x1b[K");
    },
  };
}
