// What counts as a value that changes from run to run: the forms servers print dates, times and ids
// in, and never the date that names a protocol revision.
import { describe, expect, it } from 'vitest';
import type { Frame } from '../../harness/cassette/format/model.ts';
import { markNondeterministic, maskNondeterministic } from '../../harness/cassette/recording/normalise.ts';

describe('nondeterministic values', () => {
  it.each([
    ['an ISO timestamp', 'at 2026-11-30T12:25:50.123Z', 'at <timestamp>'],
    ['an ISO date and time without a zone', 'at 2026-11-30 12:25:50 here', 'at <timestamp> here'],
    ['a date alone', 'today is 2026-11-30.', 'today is <date>.'],
    ["JavaScript's Date.toString()", 'now: Mon Nov 30 2026 12:25:50 GMT+0000 (Coordinated Universal Time)', 'now: <date>'],
    ['an HTTP date (toUTCString())', 'Date: Mon, 30 Nov 2026 12:25:50 GMT', 'Date: <date>'],
    ['an RFC 2822 date with an offset', 'sent 30 Nov 2026 12:25:50 +0100 by', 'sent <date> by'],
    ['a clock time in prose', 'created at 12:18:55 AM', 'created at <time>'],
    ['a UUID of any version in text', 'task 0193c1a2-7b3e-7c1d-8e2f-1234567890ab done', 'task <uuid> done'],
  ])('%s', (_, text, masked) => {
    expect(maskNondeterministic(text)).toBe(masked);
  });

  it('leaves other numbers alone, and a protocol revision where MCP names one', () => {
    expect(maskNondeterministic('port 8080, 12345 items, version 2.0.0')).toBe('port 8080, 12345 items, version 2.0.0');
    expect(maskNondeterministic({ protocolVersion: '2025-11-25', note: '2025-11-25' })).toEqual({ protocolVersion: '2025-11-25', note: '<date>' });
  });

  it('marks free the paths of such values, but not the protocol version a client asks for', () => {
    const frames: Frame[] = [
      { from: 'client', message: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } } },
      { from: 'server', message: { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', serverInfo: { name: 's', version: '1' } } } },
      { from: 'client', message: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'log', arguments: { at: 'Mon, 30 Nov 2026 12:25:50 GMT' } } } },
      { from: 'server', message: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'logged on 2026-11-30' }] } } },
    ];
    markNondeterministic(frames);
    expect(frames.map((frame) => (frame as { free?: string[] }).free)).toEqual([undefined, undefined, ['params.arguments.at'], ['result.content[0].text']]);
  });
});
