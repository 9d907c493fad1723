// The player served over Streamable HTTP on 127.0.0.1 (face.ts is how it answers): a port of its own
// (a free one by default), a bounded number of connections, and the session it plays.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { byRole, type Cassette, type Diagnosis, type PlayerSession, type RoleSecret } from '../../cassette/index.ts';
import { OpenConnections } from './connections.ts';
import { HttpFace, type HttpFaceOptions } from './face.ts';

export interface HttpPlayerSession extends PlayerSession {
  /** http://127.0.0.1:<port><path> */
  readonly url: string;
  /** Stops listening and ends every open stream. */
  close(): Promise<void>;
  /** Resolves once no connection to it is open (once the program has exited: all it sent has been handled). */
  allClosed(): Promise<void>;
  /** What of the authorization's tokens, codes and secrets `printed` holds: a diagnosis a kind of value. */
  leaks(printed: string): Diagnosis[];
  /** This session's tokens, codes and secrets, each with its role: never shown as they are. */
  secrets(): RoleSecret[];
  /** JSON data (a report) with each of those secrets shown by its role. */
  byRole<T>(data: T): T;
}

/** Far more than a client keeps open (a POST or two, a GET stream, a pool's spares). */
const MAX_CONNECTIONS = 32;

export async function serveCassette(cassette: Cassette, options: HttpFaceOptions = {}): Promise<HttpPlayerSession> {
  const face = new HttpFace(cassette, options);
  const server = createServer((request, response) => face.handle(request, response));
  server.keepAliveTimeout = 60_000;
  // The client is untrusted and the player lives in the grader: it holds a bounded number of
  // connections (each with at most one body of MAX_BODY_BYTES), a further one is closed at once.
  server.maxConnections = MAX_CONNECTIONS;
  const connections = new OpenConnections();
  server.on('connection', (socket) => connections.add(socket));
  await listen(server, options.port ?? 0);
  const { port } = server.address() as AddressInfo;
  const path = cassette.http?.path ?? '/mcp';
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    done: face.done,
    finish: () => face.finish(),
    get diagnoses() {
      return face.player.diagnoses;
    },
    waitsForClient: () => face.waitsForClient(),
    allClosed: () => connections.allClosed(),
    leaks: (printed) => face.authorization?.leaks(printed) ?? [],
    secrets: () => face.authorization?.secrets() ?? [],
    byRole: <T>(data: T): T => {
      const secrets = face.authorization?.secrets() ?? [];
      return secrets.length === 0 ? data : (JSON.parse(byRole(JSON.stringify(data), secrets)) as T);
    },
    close: () =>
      (closed ??= new Promise((resolve) => {
        face.finish();
        face.endStreams();
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new Error(`port ${port} on 127.0.0.1 is in use: pick another with --port, or 0 for a free one`) : error),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
}
