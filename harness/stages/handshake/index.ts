// Stage 2, `handshake`: initialize against a server played from a cassette. Its hints read the
// `initialize` outcome program.ts prints; its generator makes a server of its own for each case.
import fc from 'fast-check';
import type { Comparison } from '../../grade/comparison.ts';
import type { Hint } from '../../run/verdict.ts';
import { REQUESTED_VERSION, SUPPORTED_VERSIONS } from '../../protocol.ts';
import type { GeneratedFiles, StageContent } from '../stage-content.ts';
import { cassetteYaml, draw, handshakeFrames, text, word } from '../generated.ts';
import { outcomeMistake, outcomeOf } from '../outcome.ts';
import { fieldsOf, readBoth } from '../reading.ts';
import { handshakePart } from './output.ts';

// ------------------------------------------------------------------------------------ hints

function initializeRule(comparison: Comparison): Hint[] {
  const both = readBoth(comparison, handshakePart);
  if (!both || !('initialize' in both.expected)) return [];
  const expected = both.expected.initialize;
  const actual = both.actual.initialize;
  if (outcomeOf(expected) === 'refused' && outcomeOf(actual) === 'result') {
    const offered = fieldsOf(actual).protocolVersion;
    // Older and still unsupported: what a client that compares dates lets through.
    const older = typeof offered === 'string' && offered < REQUESTED_VERSION;
    return [
      {
        kind: 'version-accepted',
        lines: [
          `the server offered protocol version ${JSON.stringify(offered)}, which your client does not support`,
          'initialize must refuse it (throw, and send no notifications/initialized)',
          ...(older
            ? [
                `it is older than the version you asked for, and still not one you support: look it up in SUPPORTED_PROTOCOL_VERSIONS (comparing dates lets it through)`,
              ]
            : []),
        ],
        general: [
          'the server offered a protocol version your client does not support',
          'initialize must refuse it (throw, and send no notifications/initialized): look the version up in SUPPORTED_PROTOCOL_VERSIONS',
        ],
      },
    ];
  }
  if (outcomeOf(expected) === 'result' && outcomeOf(actual) === 'refused') {
    const version = fieldsOf(expected).protocolVersion;
    if (version !== REQUESTED_VERSION) {
      return [
        {
          kind: 'version-refused',
          lines: [
            `initialize refused the protocol version the server offered in return, ${JSON.stringify(version)}`,
            'a version your client supports is fine: go on with it',
          ],
          general: ['initialize refused the protocol version the server offered in return', 'a version your client supports is fine: go on with it'],
        },
      ];
    }
    return [
      {
        kind: 'initialize-threw',
        lines: [
          'initialize threw, though the server answered with a result; its message is in the [your_program] lines below',
          "the response is the message with your request's id: notifications (no id) and other lines may come first",
        ],
        general: [
          'initialize threw, though the server answered with a result',
          "the response is the message with your request's id: notifications (no id) and other lines may come first",
        ],
      },
    ];
  }
  const mistake = outcomeMistake(expected, actual, 'initialize', 'initialize');
  return mistake ? [{ kind: 'initialize-outcome', ...mistake }] : [];
}

/** The driver adds `closed: false` when close() returned with the wire still open (program.ts). */
function closeRule(comparison: Comparison): Hint[] {
  const both = readBoth(comparison, handshakePart);
  if (both?.actual.closed !== false || 'closed' in both.expected) return [];
  return [
    {
      kind: 'close-left-open',
      lines: [
        'close() returned, and the wire to the server was still open: your program would have kept the server running',
        "McpClient.close() must close its transport, the transport's close() its wire (wire.close()), and spawnWire's close() the child's stdin",
      ],
    },
  ];
}

/** U+FFFD where expected.json has none: a read cut inside a character, decoded alone (spawnWire). */
function decodingRule(comparison: Comparison): Hint[] {
  if (!comparison.actualText.includes('\uFFFD') || comparison.expectedText.includes('\uFFFD')) return [];
  return [
    {
      kind: 'character-cut-decoded',
      lines: [
        'a character the server wrote was cut between two reads, and each read was decoded alone: your output has U+FFFD (�) where it was',
        "decode the child's stdout as one stream: child.stdout.setEncoding('utf8'), or one TextDecoder with { stream: true }",
      ],
    },
  ];
}

// ----------------------------------------------------------------------------- random cases

/** A generated server's handshake: its name, version, capabilities, instructions, the version it
 *  offers (any the client supports), and notifications or log messages sent before its result. */
const handshakeSession = fc.record(
  {
    name: word,
    version: fc.tuple(fc.nat(20), fc.nat(20), fc.nat(99)).map((parts) => parts.join('.')),
    protocolVersion: fc.constantFrom(...SUPPORTED_VERSIONS),
    capabilities: fc.subarray(['tools', 'prompts', 'resources', 'logging', 'completions']).map((names) => Object.fromEntries(names.map((name) => [name, {}]))),
    instructions: fc.option(text, { nil: undefined }),
    before: fc.array(
      fc.oneof(
        fc.constant({ server: { method: 'notifications/tools/list_changed', jsonrpc: '2.0' } }),
        text.map((data) => ({ server: { method: 'notifications/message', params: { level: 'info', data }, jsonrpc: '2.0' } })),
      ),
      { maxLength: 2 },
    ),
  },
  { requiredKeys: ['name', 'version', 'protocolVersion', 'capabilities', 'before'], noNullPrototype: true },
);

function handshakeFiles(seed: number, index: number): GeneratedFiles {
  const { name, version, protocolVersion, capabilities, instructions, before } = draw(handshakeSession, seed, index);
  const result = { protocolVersion, capabilities, serverInfo: { name, version }, ...(instructions === undefined ? {} : { instructions }) };
  return {
    inputs: { 'case.md': 'A generated server: its handshake.\n' },
    fixtures: { 'cassette.yaml': cassetteYaml(handshakeFrames(result, before), seed, index) },
  };
}

export const handshake: StageContent = {
  slug: 'handshake',
  hints: [initializeRule, closeRule, decodingRule],
  generators: { handshake: handshakeFiles },
};
