// Proof that the handshake, tools, streamable-http, translate, stateless, authorization and resources-and-prompts cases don't over-constrain: a second, independent correct
// client (the official SDK's Client behind test/sdk-client/src/mcp.ts) passes every one of them, but
// those where the SDK does otherwise than the spec's words (SDK_DIFFERS, each with the words).
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCourse } from '../harness/course.ts';
import { gradeStage } from '../harness/grade/stage.ts';
import { programEnv } from '../harness/run/env.ts';
import { launcher } from '../harness/run/launcher.ts';
import { courseCopy, REPO } from './helpers/cli.ts';
import { COURSE_CONTENT } from '../harness/stages/index.ts';

const dir = courseCopy();
rmSync(join(dir, 'src'), { recursive: true });
cpSync(join(REPO, 'test/sdk-client/src'), join(dir, 'src'), { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the SDK client imports: the packages this test lets it bring, which no course may allow a
 *  submission (course.yaml refuses them), since here the client under test is the SDK's own. */
const SDK_PACKAGES = ['@modelcontextprotocol/sdk', '@modelcontextprotocol/client', 'eventsource-parser'];

/** Cases where the SDK (its v2 client, 2.4; for authorization, its v1 client, 1.32) does otherwise than
 *  the course, each with why the course's way is the spec's: they fail (a wrong output) or err (a protocol
 *  the player refuses), and only they; a new SDK that changes its way is noticed here. */
const SDK_DIFFERS: Record<string, string> = {
  // 2026-07-28 basic/transports/stdio#backward-compatibility: "The server returns a recognized modern
  // JSON-RPC error ...: the server is modern ... Do not fall back to initialize."
  'probe-refused-by-the-revision': "the SDK falls back to initialize on -32021, one of the revision's own errors",
  // 2026-07-28 server/utilities/pagination: clients make no "determination based on cursor value other
  // than whether a non-null value was provided"; the schema types nextCursor as a string, and the SDK
  // refuses the page. The course reads null as no cursor (docs/course.md).
  'null-cursor-ends-list': 'the SDK refuses a page whose nextCursor is null',
  // 2025-11-25 basic/authorization#authorization-code-protection: "MCP clients MUST verify PKCE support
  // before proceeding with authorization ... If code_challenge_methods_supported is absent, the
  // authorization server does not support PKCE and MCP clients MUST refuse to proceed."
  'pkce-unsupported':
    "the SDK's auth() registers, then asks for authorization, when the metadata has no code_challenge_methods_supported: its startAuthorization refuses only a list without S256",
  // ibid., of OpenID Connect Discovery 1.0: "MCP clients MUST verify the presence of
  // code_challenge_methods_supported in the provider metadata response. If the field is absent, MCP
  // clients MUST refuse to proceed."
  'pkce-unsupported-openid':
    'the same: the SDK registers, then asks for authorization, where the OpenID Connect metadata has no code_challenge_methods_supported',
  // RFC 8414 3.3: "The issuer value returned MUST be identical to the authorization server's issuer
  // identifier value into which the well-known URI string was inserted ... If these values are not
  // identical, the data contained in the response MUST NOT be used." (2026-07-28 says it of MCP clients.)
  'issuer-mismatch':
    "the SDK's auth() does not compare the metadata's issuer with the URL it read it for (its comment: this version does not check that the metadata document echoes the URL it was fetched from), and registers",
  // RFC 6570 section 1.2's examples, levels 1 to 4 (the 2025-11-25 spec: "Resource templates allow servers
  // to expose parameterized resources using URI templates", RFC 6570). The cases' templates ({name},
  // {+path}, {?q,lang}) it expands right.
  "property: expandTemplate gives RFC 6570's own expansions (section 1.2, levels 1 to 4)":
    "the SDK's UriTemplate (1.32) gets 41 of the RFC's 66 examples wrong: no associative arrays or prefixes, {/var,x} and {.x,y} without their separators, {;x,y} and explode of ? and & lists",
};

describe('the official SDK client, behind the course API', () => {
  // bundled once, for every stage: the same src/ and packages each time
  let started: ReturnType<typeof launcher> | undefined;
  const sdkLauncher = () => (started ??= launcher(dir, { bundle: true, packages: SDK_PACKAGES }));
  for (const slug of ['handshake', 'tools', 'streamable-http', 'translate', 'stateless', 'authorization', 'resources-and-prompts']) {
    it(`passes every case of the ${slug} stage`, async () => {
      const stage = loadCourse(dir).stages.find((candidate) => candidate.slug === slug)!;
      const result = await gradeStage(stage, {
        runRoot: dir,
        content: COURSE_CONTENT,
        launcher: await sdkLauncher(),
        env: programEnv(),
        seed: 1,
        propertyRuns: 1,
      });
      // a case, or a property (stage 8's: the SDK's expandTemplate is its UriTemplate)
      const names = [
        ...stage.cases.map((testCase) => testCase.name),
        ...result.verdicts.filter((verdict) => verdict.name.startsWith('property: ')).map((verdict) => verdict.name),
      ];
      const differs = names.filter((name) => name in SDK_DIFFERS);
      expect(result.verdicts.filter((verdict) => verdict.status !== 'pass' && !differs.includes(verdict.name))).toEqual([]);
      expect(result.verdicts.filter((verdict) => differs.includes(verdict.name)).map((verdict) => [verdict.name, verdict.status !== 'pass'])).toEqual(
        differs.map((name) => [name, true]),
      );
      expect(result.verdicts.filter((verdict) => !verdict.name.startsWith('property: '))).toHaveLength(stage.cases.length);
    });
  }
});
