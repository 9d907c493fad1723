// The same recordings proven with a second client nobody here wrote: the AI SDK (`ai` with
// `@ai-sdk/anthropic`, which runs on Node 20 though it asks for 22), whose generateText runs its own
// tool loop, and whose streamText reads the event streams. It sends anthropic-version 2023-06-01, so
// it is told the recordings' version as a header of its provider. (It also sends anthropic-beta
// structured-outputs-2025-11-13 by itself: a header the recordings leave out, so not compared.)
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { FAKE_KEY, replay, WEATHER, WEATHER_TOOL } from './helpers.ts';

const model = (url: string) => createAnthropic({ apiKey: FAKE_KEY, baseURL: `${url}/v1`, headers: { 'anthropic-version': '2026-10-21' } })('claude-opus-4-6');

const tools = {
  get_weather: tool({
    description: WEATHER_TOOL.description,
    inputSchema: jsonSchema<{ city: string }>(WEATHER_TOOL.input_schema),
    execute: async () => WEATHER,
  }),
};

describe('the AI SDK against the replay', () => {
  it("runs generateText's tool loop to end_turn on the JSON replies", async () => {
    const served = await replay('tool-use');
    const result = await generateText({
      model: model(served.url),
      tools,
      stopWhen: stepCountIs(5),
      maxOutputTokens: 1024,
      maxRetries: 0,
      prompt: 'What is the weather in Paris?',
    });
    expect(served.report().diagnoses).toEqual([]);
    expect(result.text).toBe('It is 14°C in Paris, with light rain.');
    expect(result.steps.flatMap((step) => step.toolCalls.map((call) => call.input))).toEqual([{ city: 'Paris' }]);
    expect(served.report()).toMatchObject({ ok: true, complete: true });
  });

  it("runs streamText's tool loop on the event streams", async () => {
    const served = await replay('tool-use-stream');
    // Its fine-grained tool streaming (a field of each tool) is a request the recording does not have: off.
    const providerOptions = { anthropic: { toolStreaming: false } };
    const result = streamText({
      model: model(served.url),
      tools,
      stopWhen: stepCountIs(5),
      maxOutputTokens: 1024,
      maxRetries: 0,
      providerOptions,
      prompt: 'What is the weather in Paris?',
    });
    expect(await result.text).toBe('It is 14°C in Paris, with light rain.');
    expect(served.report().diagnoses).toEqual([]);
    expect(served.report()).toMatchObject({ ok: true, complete: true });
  });
});
