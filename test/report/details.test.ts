// What a failing check says under its verdict line, of the endpoints its case played: each player that
// found something, named by its endpoint when the case has several (as a one-endpoint case always
// printed it otherwise: "the cassette player"), with its recording, its diagnoses and the count of the rest.
import { describe, expect, it } from 'vitest';
import { detailText } from '../../harness/report/details.ts';
import type { EndpointSession } from '../../harness/run/verdict.ts';

const mcp: EndpointSession = {
  endpoint: 'mcp',
  cassette: 'fixtures/agent/one-tool/cassette.yaml',
  diagnoses: [{ kind: 'unused', message: 'the session ended before your client sent tools/call' }],
  more: 0,
};
const llm: EndpointSession = {
  endpoint: 'llm',
  cassette: 'fixtures/agent/one-tool/llm.yaml',
  diagnoses: [{ kind: 'api-key', message: 'your client sent POST /v1/messages without the x-api-key header' }],
  more: 3,
};

describe("a check's details, of its endpoints", () => {
  it('name each player by its endpoint when the case has several, each with its recording, in the case order', () => {
    expect(detailText({ sessions: [mcp, llm] })).toBe(
      [
        'the player of mcp (fixtures/agent/one-tool/cassette.yaml) says:',
        '  unused: the session ended before your client sent tools/call',
        'the player of llm (fixtures/agent/one-tool/llm.yaml) says:',
        '  api-key: your client sent POST /v1/messages without the x-api-key header',
        '  … and 3 more',
      ].join('\n'),
    );
  });

  it('say nothing of an endpoint whose player found nothing', () => {
    expect(detailText({ sessions: [{ ...mcp, diagnoses: [] }, llm] })).toBe(
      [
        'the player of llm (fixtures/agent/one-tool/llm.yaml) says:',
        '  api-key: your client sent POST /v1/messages without the x-api-key header',
        '  … and 3 more',
      ].join('\n'),
    );
  });

  it('call the one player of a one-endpoint case the cassette player, as before endpoints', () => {
    expect(detailText({ sessions: [mcp] })).toBe(
      ['the cassette player (fixtures/agent/one-tool/cassette.yaml) says:', '  unused: the session ended before your client sent tools/call'].join('\n'),
    );
  });
});
