// Cuts a stream of text into lines at '\n', whatever the chunking; each line keeps its terminator.
export class LineSplitter {
  private rest = '';

  /** The complete lines this chunk finishes. */
  push(chunk: string): string[] {
    const text = this.rest + chunk;
    const lines: string[] = [];
    let start = 0;
    let end: number;
    while ((end = text.indexOf('\n', start)) !== -1) {
      lines.push(text.slice(start, end + 1));
      start = end + 1;
    }
    this.rest = text.slice(start);
    return lines;
  }

  /** What is left without a terminator when the stream ends. */
  flush(): string {
    const rest = this.rest;
    this.rest = '';
    return rest;
  }
}
