// What the player says of a client that strays, driven by the official SDK: a wrong key, a body that
// differs (where, by JSON path), a request past the recording (exhausted), tool results not first; and
// the equivalences it allows (a string content is one text block, an absent field its default). The
// recording format's errors name file, line and field.
import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { parseRecording } from '../../../harness/protocols/http-api/index.ts';
import { FAKE_KEY, replay, WEATHER, WEATHER_TOOL } from './helpers.ts';

const ask = (url: string, messages: MessageParam[], options: { key?: string; stream?: boolean } = {}) =>
  new Anthropic({ apiKey: options.key ?? FAKE_KEY, baseURL: url, maxRetries: 0 }).messages.create({
    model: 'claude-opus-4-6',
    max_tokens: 1024,
    tools: [WEATHER_TOOL],
    messages,
    ...(options.stream === false && { stream: false }),
  });

const PARIS: MessageParam = { role: 'user', content: 'What is the weather in Paris?' };
const TURN: MessageParam = {
  role: 'assistant',
  content: [
    { type: 'text', text: "I'll check the weather in Paris for you." },
    { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', input: { city: 'Paris' } },
  ],
};
const RESULT = { type: 'tool_result' as const, tool_use_id: 'toolu_01A09q90qw90lq917835lq9', content: WEATHER };

describe('the player', () => {
  it('refuses a key other than the one the program was given (401), and says so', async () => {
    const served = await replay('tool-use');
    await expect(ask(served.url, [PARIS], { key: 'sk-ant-someone-elses' })).rejects.toThrow(Anthropic.AuthenticationError);
    const report = served.report();
    expect(report.diagnoses[0]).toMatchObject({ kind: 'api-key', message: expect.stringContaining('a key other than the one it was given') });
    expect(report).toMatchObject({ ok: false, consumed: 0 });
  });

  it('says where a body differs from the recorded request, by JSON path, and names its line', async () => {
    const served = await replay('tool-use');
    await expect(ask(served.url, [{ role: 'user', content: 'What is the weather in London?' }])).rejects.toThrow(Anthropic.BadRequestError);
    expect(served.report().diagnoses[0]).toMatchObject({
      kind: 'api-request-differs',
      path: 'messages[0].content[0].text',
      expected: 'What is the weather in Paris?',
      actual: 'What is the weather in London?',
      nearest: { frame: 0, line: 16 },
      message: expect.stringContaining('the nearest, the recorded request at line 16, differs at messages[0].content[0].text'),
    });
  });

  it('takes a string content as one text block, and an absent field as its default', async () => {
    const served = await replay('tool-use');
    const message = await ask(served.url, [{ role: 'user', content: [{ type: 'text', text: 'What is the weather in Paris?' }] }], { stream: false });
    expect(message.stop_reason).toBe('tool_use');
    await ask(served.url, [PARIS, TURN, { role: 'user', content: [{ ...RESULT, is_error: false, content: [{ type: 'text', text: WEATHER }] }] }]);
    expect(served.report()).toMatchObject({ ok: true, complete: true });
  });

  it('says the recording is exhausted at a request past it, with the nearest recorded one', async () => {
    const served = await replay('invalid-400');
    const send = () =>
      new Anthropic({ apiKey: FAKE_KEY, baseURL: served.url, maxRetries: 0 }).messages.create({
        model: 'claude-opus-4-6',
        max_tokens: 256,
        messages: [{ role: 'user', content: '' }],
      });
    await expect(send()).rejects.toMatchObject({ status: 400, requestID: 'req_011CVx7gB2cS6nYk8Uw4Hd3R' });
    // A 400 retried: the same request, past the one recorded.
    await expect(send()).rejects.toMatchObject({ status: 400, error: { error: { message: expect.stringContaining('the recording is exhausted') } } });
    const report = served.report();
    expect(report.diagnoses).toEqual([
      expect.objectContaining({
        kind: 'api-exhausted',
        message:
          'the recording is exhausted: your request #2 came after the 1 recorded response was used; it is the same request as the recorded request at line 13, sent again',
        nearest: expect.objectContaining({ line: 13 }),
      }),
    ]);
    expect(report).toMatchObject({ ok: false, complete: true, consumed: 1, expected: 1 });
  });

  it("holds the API's own rules whatever the recording says: tool results first, in its words", async () => {
    const served = await replay('tool-use');
    await ask(served.url, [PARIS]);
    const textFirst: MessageParam = { role: 'user', content: [{ type: 'text', text: 'Here it is:' }, RESULT] };
    await expect(ask(served.url, [PARIS, TURN, textFirst])).rejects.toMatchObject({
      status: 400,
      error: {
        error: { type: 'invalid_request_error', message: expect.stringContaining('Did not find 1 tool_result block(s) at the beginning of this message') },
      },
    });
    expect(served.report().diagnoses[0]).toMatchObject({ kind: 'api-tool-result-first', path: 'messages.2.content.0' });
  });

  it('holds the other rules: each tool use answered in the next message, no unknown tool_use_id, tool names in the pattern', async () => {
    const served = await replay('tool-use');
    const separate: MessageParam[] = [
      PARIS,
      { role: 'assistant', content: [...(TURN.content as []), { type: 'tool_use', id: 'toolu_02', name: 'get_weather', input: { city: 'Lyon' } }] },
      { role: 'user', content: [RESULT] },
      { role: 'user', content: [{ ...RESULT, tool_use_id: 'toolu_02' }] },
    ];
    await expect(ask(served.url, separate)).rejects.toThrow('messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_02.');
    await expect(ask(served.url, [PARIS, TURN, { role: 'user', content: [{ ...RESULT, tool_use_id: 'toolu_99' }] }])).rejects.toThrow(
      'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_99.',
    );
    const dotted = new Anthropic({ apiKey: FAKE_KEY, baseURL: served.url, maxRetries: 0 }).messages.create({
      model: 'claude-opus-4-6',
      max_tokens: 1024,
      tools: [{ ...WEATHER_TOOL, name: 'weather/get.now' }],
      messages: [PARIS],
    });
    await expect(dotted).rejects.toThrow("tools.0.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'");
    expect(served.report().diagnoses.map((diagnosis) => diagnosis.kind)).toEqual(['api-tool-result-missing', 'api-tool-use-id', 'api-tool-name', 'api-unused']);
  });
});

describe('the recording format', () => {
  const good = `version: 1
protocol: http-api
api: anthropic-messages
provenance: { url: https://api.anthropic.com, recorded: 2026-12-07 }
exchanges:
  - request:
      method: POST
      path: /v1/messages
      body: { model: m, max_tokens: 1, messages: [{ role: user, content: hi }] }
    response:
      status: 200
      json: { type: message }
`;

  it('reads a recording whose every field is right', () => {
    expect(parseRecording(good, 'r.yaml').exchanges[0]).toMatchObject({ line: 6, request: { path: '/v1/messages' }, response: { status: 200 } });
  });

  it('names file, line and field, and what was expected', () => {
    const cases: [string, string][] = [
      [good.replace('status: 200', 'status: two hundred'), 'r.yaml:11: exchanges[0].response.status: expected an HTTP status (100 to 599)'],
      [
        good.replace('      json: { type: message }', '      events: [{ event: ping, data: { type: pong } }]'),
        'r.yaml:12: exchanges[0].response.events[0].data: expected a JSON object whose type is the event\'s name, "ping"',
      ],
      [
        good.replace('      body:', '      headers: { x-api-key: sk-ant-real }\n      body:'),
        'r.yaml:9: exchanges[0].request.headers.x-api-key: a recording keeps no key',
      ],
      [
        good.replace('content: hi', 'content: [{ type: text, text: a }, { type: tool_result, tool_use_id: t, content: b }]'),
        "r.yaml:9: exchanges[0].request.body.messages[0].content[0]: breaks the API's own rule",
      ],
      [good.replace('version: 1', 'version: 2'), 'r.yaml:1: version: this file is recording version 2; this theinference reads version 1'],
    ];
    for (const [text, message] of cases) expect(() => parseRecording(text, 'r.yaml')).toThrow(message);
  });
});
