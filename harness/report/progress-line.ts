// A line on a terminal that says how far a long step has come (list grading a stage, bless running the
// reference), written again as it moves and rubbed out once the step is done. Elsewhere (piped, in CI)
// it writes nothing: what is piped is only the command's own lines.
export class ProgressLine {
  private readonly shown: boolean;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {
    this.shown = stream.isTTY === true;
  }

  show(text: string): void {
    if (this.shown) this.stream.write(`\r\x1b[K${text}`);
  }

  clear(): void {
    if (this.shown) this.stream.write('\r\x1b[K');
  }
}
