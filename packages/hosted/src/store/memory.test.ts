import { describe, expect, it } from 'vitest';
import { runKvConformance } from './conformance.js';
import { createStore } from './create.js';

runKvConformance('memory:', { open: () => createStore('memory:') });

describe('memory:', () => {
  it('each memory: store is its own', async () => {
    const a = await createStore('memory:');
    const b = await createStore('memory:');
    await a.set('k', 'v');
    expect(a.driver).toBe('memory');
    expect(await b.get('k')).toBeUndefined();
  });
});
