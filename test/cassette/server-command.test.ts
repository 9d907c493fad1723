// How a recorded server was started, as the provenance names it: the package an `npx` command runs
// (pinned, installed here, or neither), or the one a file argument belongs to.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findPackage, portableCommand } from '../../harness/cassette/recording/server-command.ts';

const dir = mkdtempSync(join(tmpdir(), 'server-command-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const manifest = (path: string, fields: object) => {
  mkdirSync(join(dir, path), { recursive: true });
  writeFileSync(join(dir, path, 'package.json'), JSON.stringify(fields));
};
manifest('node_modules/@acme/mcp-server', { name: '@acme/mcp-server', version: '3.1.4' });
manifest('servers/weather', { name: 'weather-server', version: '0.2.0' });
mkdirSync(join(dir, 'servers/weather/dist'));
writeFileSync(join(dir, 'servers/weather/dist/index.js'), '');

describe('the package a server command runs', () => {
  it('is the one npx names: at the version it pins, else as installed here, else unversioned', () => {
    expect(findPackage(['npx', '-y', '@acme/mcp-server@2.0.0', 'http'], dir)).toEqual({ package: '@acme/mcp-server', packageVersion: '2.0.0' });
    expect(findPackage(['npx', '@acme/mcp-server', 'http'], dir)).toEqual({ package: '@acme/mcp-server', packageVersion: '3.1.4' });
    expect(findPackage(['npx', '--yes', 'other-server@latest'], dir)).toEqual({ package: 'other-server' });
  });

  it('is the nearest named package.json above a file argument, and nothing where there is none', () => {
    expect(findPackage(['node', 'servers/weather/dist/index.js'], dir)).toEqual({ package: 'weather-server', packageVersion: '0.2.0' });
    expect(findPackage(['python3', '-m', 'server'], dir)).toEqual({});
  });

  it('is written as typed in the project folder: node, and paths relative to it', () => {
    expect(portableCommand([process.execPath, join(dir, 'servers/weather/dist/index.js')], dir)).toEqual(['node', 'servers/weather/dist/index.js']);
  });
});
