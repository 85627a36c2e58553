// The shared build of the provider packages (tsup.provider.ts at the repository root), plus
// `./load`: the provider that loads only the served toolsets' tool code, without the complete
// tool list that `.` brings (the composed server starts Basecamp through it); and `./connection`,
// its hosted sign-in (Launchpad) for `--auth oauth`.
import { defineConfig, type Options } from 'tsup';
import shared from '../../tsup.provider.js';

const [library, ...rest] = shared as Options[];
export default defineConfig([
  {
    ...library,
    entry: {
      ...(library?.entry as Record<string, string>),
      load: 'src/load.ts',
      connection: 'src/hosted-connection.ts',
    },
  },
  ...rest,
]);
