// The course API has one shape: the reference solution, the starter and the SDK-based second client
// each declare it on their own, on purpose (a student reads the starter's; the grader runs the
// others), so the TypeScript compiler checks here that they declare the same thing: the same
// exports and, for each, the same parameter and result types (parameter names may differ). The
// SDK-based client returns the SDK's own result types, wider than the course's: for it, what is
// compared is every name and parameter type.
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers/cli.ts';

const FILES = {
  reference: join(REPO, 'src/mcp.ts'),
  starter: join(REPO, 'starter/src/mcp.ts'),
  sdkClient: join(REPO, 'test/sdk-client/src/mcp.ts'),
};

/** Each export of each file, as a line of text naming what it is and its types. */
function shapes(): Record<keyof typeof FILES, Map<string, string>> {
  const program = ts.createProgram(Object.values(FILES), {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    types: ['node'],
  });
  const checker = program.getTypeChecker();
  const text = (type: ts.Type, flags = ts.TypeFormatFlags.None) => checker.typeToString(type, undefined, ts.TypeFormatFlags.NoTruncation | flags);
  const signature = (sig: ts.Signature, at: ts.Node) => {
    const params = sig.parameters.map((param) => {
      const declaration = param.valueDeclaration as ts.ParameterDeclaration | undefined;
      const optional = declaration?.questionToken !== undefined || declaration?.initializer !== undefined ? '?' : '';
      return `${optional}${text(checker.getTypeOfSymbolAtLocation(param, at))}`;
    });
    return `(${params.join(', ')}) => ${text(checker.getReturnTypeOfSignature(sig))}`;
  };
  const members = (type: ts.Type, at: ts.Node) =>
    checker
      .getPropertiesOfType(type)
      .filter(
        (member) =>
          !member.name.startsWith('#') && !(ts.getCombinedModifierFlags(member.valueDeclaration ?? member.declarations![0]!) & ts.ModifierFlags.Private),
      )
      .map((member) => {
        const memberType = checker.getTypeOfSymbolAtLocation(member, at);
        const calls = memberType.getCallSignatures();
        const optional = member.flags & ts.SymbolFlags.Optional ? '?' : '';
        return `${member.name}${optional}: ${calls.length > 0 && member.flags & ts.SymbolFlags.Method ? calls.map((sig) => signature(sig, at)).join(' & ') : text(memberType)}`;
      })
      .sort();

  const shapeOf = (file: string) => {
    const source = program.getSourceFile(file)!;
    const exported = new Map<string, string>();
    for (const symbol of checker.getExportsOfModule(checker.getSymbolAtLocation(source)!)) {
      const declaration = symbol.declarations![0]!;
      if (ts.isClassDeclaration(declaration)) {
        const constructors = checker
          .getTypeOfSymbolAtLocation(symbol, declaration)
          .getConstructSignatures()
          .map((sig) => signature(sig, declaration));
        exported.set(symbol.name, `class new${constructors.join(' & ')} { ${members(checker.getDeclaredTypeOfSymbol(symbol), declaration).join('; ')} }`);
      } else if (ts.isInterfaceDeclaration(declaration)) {
        exported.set(symbol.name, `interface { ${members(checker.getDeclaredTypeOfSymbol(symbol), declaration).join('; ')} }`);
      } else if (ts.isTypeAliasDeclaration(declaration)) {
        exported.set(symbol.name, `type ${text(checker.getDeclaredTypeOfSymbol(symbol), ts.TypeFormatFlags.InTypeAlias)}`);
      } else {
        const type = checker.getTypeOfSymbolAtLocation(symbol, declaration);
        const calls = type.getCallSignatures();
        exported.set(symbol.name, calls.length > 0 ? `function ${calls.map((sig) => signature(sig, declaration)).join(' & ')}` : `const ${text(type)}`);
      }
    }
    return exported;
  };
  return { reference: shapeOf(FILES.reference), starter: shapeOf(FILES.starter), sdkClient: shapeOf(FILES.sdkClient) };
}

describe('the course API', () => {
  const { reference, starter, sdkClient } = shapes();

  it('is declared alike by the reference and the starter: every export, with the same types', () => {
    expect(reference.size).toBeGreaterThan(10);
    expect(Object.fromEntries(starter)).toEqual(Object.fromEntries(reference));
  });

  it('is declared alike by the SDK-based client, for each part of it the client implements', () => {
    expect([...sdkClient.keys()].sort()).toEqual([
      'AuthorizationFound',
      'ClientRegistration',
      'HttpTransport',
      'McpClient',
      'McpError',
      'OAuthClient',
      'OAuthOptions',
      'ServerConfig',
      'StdioTransport',
      'TemplateValue',
      'Transport',
      'Wire',
      'decodeBase64',
      'expandTemplate',
      'parseConfig',
      'readSse',
      'spawnWire',
      'toClaudeTool',
    ]);
    const withoutResults = (shape: string | undefined) => shape?.replace(/ => Promise<(?:[^<>]|<[^<>]*>)*>/g, ' => Promise<…>');
    for (const [name, shape] of sdkClient) expect({ name, shape: withoutResults(shape) }).toEqual({ name, shape: withoutResults(reference.get(name)) });
  });
});
