// Cuts a stream of text into lines at '\n', whatever the chunking; each line keeps its terminator.
// The start of a line is kept in pieces (a long line arriving in many chunks costs no copying),
// and a line may be capped: past `maxChars` it is the overflow, and no line comes after it.
export class LineSplitter {
  private pieces: string[] = [];
  private length = 0;
  /** The first piece of a line that grew past `maxChars`; then the splitter takes nothing more. */
  overflow: string | undefined;

  constructor(private readonly maxChars = Infinity) {}

  /** The complete lines this chunk finishes. */
  push(chunk: string): string[] {
    const lines: string[] = [];
    if (this.overflow !== undefined) return lines;
    let start = 0;
    for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
      if (this.length + end + 1 - start > this.maxChars) return this.overflowAt(chunk.slice(start, end), lines);
      this.pieces.push(chunk.slice(start, end + 1));
      lines.push(this.pieces.length === 1 ? this.pieces[0]! : this.pieces.join(''));
      this.pieces = [];
      this.length = 0;
      start = end + 1;
    }
    if (start === chunk.length) return lines;
    this.length += chunk.length - start;
    if (this.length > this.maxChars) return this.overflowAt(chunk.slice(start), lines);
    this.pieces.push(chunk.slice(start));
    return lines;
  }

  /** What is left without a terminator when the stream ends (nothing after an overflow). */
  flush(): string {
    const rest = this.pieces.join('');
    this.pieces = [];
    this.length = 0;
    return rest;
  }

  private overflowAt(piece: string, lines: string[]): string[] {
    this.overflow = this.pieces[0] ?? piece;
    this.pieces = [];
    this.length = 0;
    return lines;
  }
}
