import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('runtime', () => {
  it('these tests run on the Node the package declares (>= 22.12), not the machine default', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(manifest.engines.node).toBe('>=22.12');
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    expect(major > 22 || (major === 22 && minor >= 12), `running on Node ${process.versions.node}`).toBe(
      true,
    );
  });
});
