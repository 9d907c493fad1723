// A direct entry to the cassette commands, for tests and benches that spawn them as processes:
// `node --import tsx harness/cassette/main.ts record|replay|lint|verify ...`. People use `theinference`;
// both go through the CLI's one entry, so an error reads and exits the same either way.
import { main } from '../cli.ts';

const [name, ...args] = process.argv.slice(2);
if (name !== 'record' && name !== 'replay' && name !== 'lint' && name !== 'verify') {
  process.stderr.write('usage: main.ts record|replay|lint|verify ...\n');
  process.exit(2);
}
process.exitCode = await main([name, ...args]);
// stdin may still be open (a client that never closed it): leave once the work is done
setImmediate(() => process.exit());
