// The player served on 127.0.0.1: a port of its own (a free one by default), a bounded number of
// connections, and the report of what it saw.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PlayReport } from '../../exchange/diagnosis.ts';
import { OpenConnections } from '../../transports/http/connections.ts';
import type { ApiRecording } from './model.ts';
import { ApiPlayer } from './player.ts';

export interface ApiServeOptions {
  /** The fake key the program was given, which every request must carry (x-api-key). */
  apiKey: string;
  /** 0 (the default): a free port. */
  port?: number;
}

export interface ApiReplay {
  /** http://127.0.0.1:<port>, the API's base URL (a client adds /v1/messages). */
  readonly url: string;
  /** What the client did, so far (final once it has exited and allClosed resolved). */
  report(): PlayReport;
  /** Every request it was sent is answered. */
  waitsForClient(): boolean;
  /** Resolves once no connection to it is open. */
  allClosed(): Promise<void>;
  /** Stops listening and ends every connection. */
  close(): Promise<void>;
}

/** Far more than a client keeps open (a request or two, an SDK's pool). */
const MAX_CONNECTIONS = 32;

export async function serveRecording(recording: ApiRecording, options: ApiServeOptions): Promise<ApiReplay> {
  const player = new ApiPlayer(recording, { apiKey: options.apiKey });
  const server = createServer((request, response) => player.handle(request, response));
  server.maxConnections = MAX_CONNECTIONS;
  const connections = new OpenConnections();
  server.on('connection', (socket) => {
    // Each write of a cut event goes out as it is written.
    socket.setNoDelay(true);
    connections.add(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    report: () => player.report(),
    waitsForClient: () => player.waitsForClient(),
    allClosed: () => connections.allClosed(),
    close: () =>
      (closed ??= new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}
