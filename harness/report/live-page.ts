// `test --watch --html <file>`: the report page served on 127.0.0.1 as well as written, so that a
// browser open on it shows each grading as it ends. The page (html.ts, `live`) listens on /events, and
// reloads on the word this server sends when the file is written again. The file stays the page of
// record; this only serves what is on disk, and only to this machine.
import { watch as watchFiles, type FSWatcher, readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname } from 'node:path';
import { html, LIVE_EVENTS, page } from './page.ts';

export interface LivePage {
  /** Where a browser opens it. */
  url: string;
  close(): Promise<void>;
}

/** What is served before the first grading has written the file: it too reloads once one has. */
const NOT_YET = page('theinference: grading', html`<p>The first grading is not done yet: this page shows it once it is.</p>`, { scroll: false, live: true });
/** A file written again is a burst of events (the write, the rename): one word for the burst. */
const SETTLE_MS = 50;

/** Serves `path` at / and its changes at LIVE_EVENTS (server-sent events), on a free port of 127.0.0.1. */
export async function serveLive(path: string): Promise<LivePage> {
  const listeners = new Set<ServerResponse>();
  let hosts: readonly string[] = [];
  const server = createServer((request, response) => {
    // a page of another site that has its name rebound to 127.0.0.1 comes with its own Host: refused
    if (!hosts.includes(request.headers.host ?? '')) return void response.writeHead(421).end();
    if (request.method !== 'GET') return void response.writeHead(405, { allow: 'GET' }).end();
    if (request.url === LIVE_EVENTS) {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      response.write(': waiting for the next grading\n\n');
      listeners.add(response);
      response.on('close', () => listeners.delete(response));
      return;
    }
    if (request.url !== '/') return void response.writeHead(404).end();
    let page: string;
    try {
      page = readFileSync(path, 'utf8');
    } catch {
      page = NOT_YET;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page);
  });
  // The report is written atomically (a rename): its folder is watched, not the file.
  const name = basename(path);
  let settle: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined = watchFiles(dirname(path), (_event, file) => {
    if (String(file) !== name) return;
    clearTimeout(settle);
    settle = setTimeout(() => {
      for (const listener of listeners) listener.write('data: graded\n\n');
    }, SETTLE_MS);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  return {
    url: `http://127.0.0.1:${port}/`,
    async close() {
      watcher?.close();
      watcher = undefined;
      clearTimeout(settle);
      for (const listener of listeners) listener.end();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
