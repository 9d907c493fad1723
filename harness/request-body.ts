// A request's body, read whole and bounded: an MCP POST to the player's HTTP face and a request to the
// authorization server served beside it each take at most MAX_BODY_BYTES, as the player reads a line
// of a stdio client up to MAX_LINE_CHARS (cassette/player/player.ts). The client is the program's.

/** The largest body a request may have: a message the player would refuse as too long anyway. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** What a refusal of a larger body says of it, after the request it names. */
export const BODY_TOO_LARGE = `with a body of more than ${MAX_BODY_BYTES / 1024 / 1024} MiB, which the grader does not read`;

/** Reads a request's body to its end, then hands it on as text; one larger than MAX_BODY_BYTES is
 *  read to its end all the same (the client is answered once it has sent it) and handed on as undefined. */
export function readBody(request: NodeJS.ReadableStream, then: (text: string | undefined) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  request.on('end', () => then(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
}
