// A direct entry to the cassette commands, for tests and benches that spawn them as processes:
// `node --import tsx harness/cassette/main.ts record|replay|lint|verify ...`. People use `theinference`.
import * as commands from './commands.ts';

const [name, ...args] = process.argv.slice(2);
const command = name === 'record' || name === 'replay' || name === 'lint' || name === 'verify' ? commands[name] : undefined;
if (command === undefined) {
  process.stderr.write('usage: main.ts record|replay|lint|verify ...\n');
  process.exit(2);
}
process.exitCode = await command(args);
// stdin may still be open (a client that never closed it): leave once the work is done
setImmediate(() => process.exit());
