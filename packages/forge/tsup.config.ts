// The shared build of the provider packages (tsup.provider.ts at the repository root), plus
// `./connection`: Forge's hosted connection (the linked account) for `--auth oauth`.
import { defineConfig, type Options } from 'tsup';
import shared from '../../tsup.provider.js';

const [library, ...rest] = shared as Options[];
export default defineConfig([
  {
    ...library,
    entry: { ...(library?.entry as Record<string, string>), connection: 'src/hosted-connection.ts' },
  },
  ...rest,
]);
