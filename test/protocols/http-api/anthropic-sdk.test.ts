// The authored Messages API recordings, proven with a client nobody here wrote: the official
// @anthropic-ai/sdk, pointed at the replay with the fake key, parses every recorded response (JSON,
// streams accumulated by its MessageStream, errors into its error classes), retries what it retries,
// and a tool loop over its calls runs each recording to its end with nothing left unused.
import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { FAKE_KEY, replay, WEATHER, WEATHER_TOOL } from './helpers.ts';

const client = (url: string, maxRetries = 0) => new Anthropic({ apiKey: FAKE_KEY, baseURL: url, maxRetries });

/** The loop a program runs: call, run each tool use, answer them all in the next user message, until the turn ends. */
async function toolLoop(sdk: Anthropic, stream: boolean): Promise<{ last: Message; calls: unknown[] }> {
  const messages: MessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
  const calls: unknown[] = [];
  for (let turn = 0; turn < 5; turn++) {
    const params = { model: 'claude-opus-4-6', max_tokens: 1024, tools: [WEATHER_TOOL], messages };
    const message = stream ? await sdk.messages.stream(params).finalMessage() : await sdk.messages.create(params);
    if (message.stop_reason !== 'tool_use') return { last: message, calls };
    messages.push({ role: 'assistant', content: message.content });
    const uses = message.content.filter((block) => block.type === 'tool_use');
    calls.push(...uses.map((use) => use.input));
    messages.push({ role: 'user', content: uses.map((use) => ({ type: 'tool_result' as const, tool_use_id: use.id, content: WEATHER })) });
  }
  throw new Error('the loop did not end in 5 turns');
}

describe('the official Anthropic SDK against the replay', () => {
  it('parses a JSON reply with a tool use, and its request id', async () => {
    const served = await replay('tool-use');
    const sdk = client(served.url);
    const { data, request_id } = await sdk.messages
      .create({ model: 'claude-opus-4-6', max_tokens: 1024, tools: [WEATHER_TOOL], messages: [{ role: 'user', content: 'What is the weather in Paris?' }] })
      .withResponse();
    expect(request_id).toBe('req_011CVx3sT2oGGvzAHnPZ5Q1a');
    expect(data.stop_reason).toBe('tool_use');
    expect(data.content).toEqual([
      { type: 'text', text: "I'll check the weather in Paris for you." },
      { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    expect(served.report().diagnoses).toEqual([
      { kind: 'api-unused', message: expect.stringContaining('line 43'), cassette: expect.any(String), nearest: expect.anything(), unusedCount: 1 },
    ]);
  });

  it('runs the tool loop to end_turn, JSON replies', async () => {
    const served = await replay('tool-use');
    const { last, calls } = await toolLoop(client(served.url), false);
    expect(calls).toEqual([{ city: 'Paris' }]);
    expect(last.content).toEqual([{ type: 'text', text: 'It is 14°C in Paris, with light rain.' }]);
    expect(last.stop_reason).toBe('end_turn');
    expect(served.report()).toMatchObject({ ok: true, complete: true, consumed: 2, expected: 2, diagnoses: [] });
  });

  it('accumulates the streams (cut inside a character and inside an event) into the same messages, and runs the loop on them', async () => {
    const served = await replay('tool-use-stream');
    const sdk = client(served.url);
    const first = sdk.messages.stream({
      model: 'claude-opus-4-6',
      max_tokens: 1024,
      tools: [WEATHER_TOOL],
      messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
    });
    const events: string[] = [];
    first.on('streamEvent', (event) => events.push(event.type));
    const message = await first.finalMessage();
    expect(events).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(message).toMatchObject({
      id: 'msg_01S9r4kE2ywVwq5TqS1QeZgx',
      stop_reason: 'tool_use',
      usage: { output_tokens: 71 },
      content: [
        { type: 'text', text: "I'll check the weather in Paris, Île-de-France, for you." },
        { type: 'tool_use', id: 'toolu_01T1x1fJ34qAmUBsCvz4tEUo', name: 'get_weather', input: { city: 'Paris' } },
      ],
    });
    await served.close();

    const again = await replay('tool-use-stream');
    const { last, calls } = await toolLoop(client(again.url), true);
    expect(calls).toEqual([{ city: 'Paris' }]);
    expect(last).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: 'It is 14°C in Paris, with light rain.' }] });
    expect(again.report()).toMatchObject({ ok: true, complete: true, consumed: 2 });
  });

  it("reads 429 and 529 as the SDK's errors, with their types and request ids, and a 400 too", async () => {
    const cases = [
      { name: 'retry-429', status: 429, type: 'rate_limit_error', id: 'req_011CVx5c1Fm3zQ8wKd6Ya2Tp', error: Anthropic.RateLimitError },
      { name: 'overloaded-529', status: 529, type: 'overloaded_error', id: 'req_011CVx6e8Hj2Nq4Vt7Bc1Zs9', error: Anthropic.InternalServerError },
      { name: 'invalid-400', status: 400, type: 'invalid_request_error', id: 'req_011CVx7gB2cS6nYk8Uw4Hd3R', error: Anthropic.BadRequestError },
    ];
    for (const { name, status, type, id, error } of cases) {
      const served = await replay(name);
      const content = name === 'invalid-400' ? '' : 'Say hello.';
      const thrown = await client(served.url)
        .messages.create({ model: 'claude-opus-4-6', max_tokens: 256, messages: [{ role: 'user', content }] })
        .catch((caught: unknown) => caught);
      expect(thrown, name).toBeInstanceOf(error);
      expect(thrown, name).toMatchObject({ status, requestID: id, error: { type: 'error', error: { type } } });
    }
  });

  it('retries the 429 after its retry-after and the 529, and gets the recorded success; does not retry the 400', async () => {
    for (const name of ['retry-429', 'overloaded-529']) {
      const served = await replay(name);
      const message = await client(served.url, 2).messages.create({
        model: 'claude-opus-4-6',
        max_tokens: 256,
        messages: [{ role: 'user', content: 'Say hello.' }],
      });
      expect(message.content, name).toEqual([{ type: 'text', text: 'Hello!' }]);
      expect(served.report(), name).toMatchObject({ ok: true, complete: true, consumed: 2 });
    }
    const served = await replay('invalid-400');
    await expect(
      client(served.url, 2).messages.create({ model: 'claude-opus-4-6', max_tokens: 256, messages: [{ role: 'user', content: '' }] }),
    ).rejects.toThrow(Anthropic.BadRequestError);
    expect(served.report()).toMatchObject({ ok: true, complete: true, consumed: 1 });
  });
});
