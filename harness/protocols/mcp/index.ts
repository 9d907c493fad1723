// The Model Context Protocol: JSON-RPC, its lifecycle, its stateless revision and the authorization of a
// remote server, played from a cassette by the cassette engine (harness/cassette/) over stdio or
// Streamable HTTP (harness/transports/).
import { type Cassette, loadCassette, MCP_KINDS } from '../../cassette/index.ts';
import { TRANSPORTS } from '../../transports/index.ts';
import type { Protocol } from '../protocol.ts';

export const mcp: Protocol<Cassette> = {
  // a case's cassette is read afresh for each run (a grading may have rewritten it)
  load: (path) => loadCassette(path, { diskCache: false }),
  transports: TRANSPORTS,
  kinds: MCP_KINDS,
  async lint(cassette) {
    const { lintCassette } = await import('../../cassette/format/lint.ts');
    return lintCassette(cassette);
  },
};
