import { describe, expect, it } from 'vitest';
import { MIN_NODE_MAJOR, unsupportedNode } from '../src/process.js';

describe('unsupportedNode', () => {
  it('refuses Node 20 with what to install', () => {
    expect(unsupportedNode('20.20.2')).toMatch(new RegExp(`needs Node.js ${MIN_NODE_MAJOR} or newer; this is 20.20.2`));
  });

  it('accepts the supported majors and later', () => {
    expect(unsupportedNode(`${MIN_NODE_MAJOR}.0.0`)).toBeNull();
    expect(unsupportedNode('24.3.1')).toBeNull();
  });
});
