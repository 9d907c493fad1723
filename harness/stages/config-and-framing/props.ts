// Stage 1's property suite, `framing`: frame and parseFrame checked against JSON.stringify itself,
// which is what the byte-compare expects a frame to be.
import { jsonRpcMessage, type JsonRpcMessage } from '../../props/arbitraries.ts';
import { equalsJson } from '../../props/equality.ts';
import { show } from '../../props/show.ts';
import { Broken, StudentThrew, callStudent, describeThrown, property, rethrowRunnerSignal, type PropertySuite, type StudentModule } from '../../props/suite.ts';

// Taken before the student's module loads, so that a module that patches JSON cannot fool us.
const stringify = JSON.stringify;

function expectedFrame(message: JsonRpcMessage): string {
  return stringify(message) + '\n';
}

function frameOf(student: StudentModule, message: JsonRpcMessage): string {
  const framed = callStudent<unknown>(student, 'frame', message);
  if (typeof framed !== 'string') throw new Broken(`frame(m) returned ${describeType(framed)}, not a string`);
  return framed;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (value instanceof Promise) return 'a Promise (frame must not be async)';
  if (Array.isArray(value)) return 'an array';
  return `a value of type ${typeof value}`;
}

function count(text: string, char: string): number {
  return text.split(char).length - 1;
}

/** What the student's frame made of the counterexample, next to what it should be. */
function explainFrame(student: StudentModule, message: JsonRpcMessage): string[] {
  let produced: string;
  try {
    const framed: unknown = (student.frame as (m: object) => unknown)(message);
    produced = show(framed);
  } catch (error) {
    rethrowRunnerSignal(error);
    produced = `(threw ${describeThrown(error)})`;
  }
  return [`your frame(m): ${produced}`, `expected:      ${show(expectedFrame(message))}`];
}

/** The same line the three ways a reader may hand it over. */
const LINE_ENDINGS = [
  { ending: '\n', label: 'with its "\\n"' },
  { ending: '', label: 'without its "\\n"' },
  { ending: '\r\n', label: 'ending in "\\r\\n"' },
] as const;

export const framingSuite: PropertySuite = {
  name: 'framing',
  requiredExports: ['frame', 'parseFrame'],
  properties: [
    property({
      id: 'one-line',
      description: 'frame(m) is one line: a single "\\n", at the end, and no "\\r"',
      arbitrary: jsonRpcMessage,
      check(student, message) {
        const framed = frameOf(student, message);
        if (framed.includes('\r')) throw new Broken(`frame(m) contains ${count(framed, '\r')} "\\r"; end the line with "\\n" alone`);
        if (!framed.endsWith('\n')) throw new Broken('frame(m) does not end with "\\n"');
        const newlines = count(framed, '\n');
        if (newlines > 1) {
          throw new Broken(`frame(m) contains ${newlines} "\\n"; a message must stay on one line (compact JSON, no pretty-printing)`);
        }
      },
      explain: explainFrame,
    }),
    property({
      id: 'compact-json',
      description: 'frame(m) is exactly JSON.stringify(m) + "\\n"',
      arbitrary: jsonRpcMessage,
      check(student, message) {
        const framed = frameOf(student, message);
        const expected = expectedFrame(message);
        if (framed === expected) return;
        let at = 0;
        while (at < framed.length && framed[at] === expected[at]) at += 1;
        throw new Broken(
          `frame(m) differs from JSON.stringify(m) + "\\n" at character ${at}: ` +
            `${show(framed.slice(at, at + 12))} where ${show(expected.slice(at, at + 12))} was expected`,
        );
      },
      explain: explainFrame,
    }),
    property({
      id: 'line-endings',
      description: 'parseFrame reads a line with its "\\n", without it, and ending in "\\r\\n"',
      arbitrary: jsonRpcMessage,
      check(student, message) {
        for (const { ending, label } of LINE_ENDINGS) {
          const line = stringify(message) + ending;
          let parsed: unknown;
          try {
            parsed = callStudent<unknown>(student, 'parseFrame', line);
          } catch (error) {
            rethrowRunnerSignal(error);
            const thrown = error instanceof StudentThrew ? error.thrown : error;
            throw new Broken(`parseFrame(line ${label}) threw ${describeThrown(thrown)}`);
          }
          if (!equalsJson(parsed, message)) {
            throw new Broken(`parseFrame(line ${label}) returned ${show(parsed)}, not the message`);
          }
        }
      },
      explain(_student, message) {
        return LINE_ENDINGS.map(({ ending, label }) => `line ${label}: ${show(stringify(message) + ending)}`);
      },
    }),
    property({
      id: 'round-trip',
      description: 'parseFrame(frame(m)) deep-equals m',
      arbitrary: jsonRpcMessage,
      check(student, message) {
        const framed = frameOf(student, message);
        const parsed = callStudent<unknown>(student, 'parseFrame', framed);
        if (!equalsJson(parsed, message)) {
          throw new Broken(`parseFrame(frame(m)) returned ${show(parsed)}, which is not m`);
        }
      },
      explain: explainFrame,
    }),
  ],
};
