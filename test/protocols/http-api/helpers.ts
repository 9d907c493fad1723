// What the http-api tests share: the authored recordings, and a replay of one that is closed after
// its test whatever happens (onTestFinished).
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { type ApiReplay, loadRecording, parseRecording, serveRecording } from '../../../harness/protocols/http-api/index.ts';

export const RECORDINGS = join(import.meta.dirname, 'recordings');
/** The fake key the program is given (never a real one: nothing here reaches the API). */
export const FAKE_KEY = 'sk-ant-theinference-fake-key';

/** Serves recordings/<name>.yaml on a free port of 127.0.0.1 for this test. */
export async function replay(name: string): Promise<ApiReplay> {
  const served = await serveRecording(loadRecording(join(RECORDINGS, `${name}.yaml`)), { apiKey: FAKE_KEY });
  onTestFinished(() => served.close());
  return served;
}

/** Serves a recording given as text, for this test. */
export async function replayText(text: string): Promise<ApiReplay> {
  const served = await serveRecording(parseRecording(text, 'inline.yaml'), { apiKey: FAKE_KEY });
  onTestFinished(() => served.close());
  return served;
}

export const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Get the current weather in a given city.',
  input_schema: {
    type: 'object' as const,
    properties: { city: { type: 'string', description: 'The city, e.g. Paris' } },
    required: ['city'],
  },
};

/** The tool's answer in every recording. */
export const WEATHER = '14°C, light rain';
