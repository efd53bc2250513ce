import { describe, expect, it } from 'vitest';
import { clusterLabels } from '../src/clusters/index.js';

const member = (title: string, centrality: number, terms: string[]) => ({ title, centrality, terms });

describe('cluster labels', () => {
  it('summarises with distinct titles: a pull request and its squash commit count once', () => {
    const labels = clusterLabels(
      new Map([
        [
          'c1',
          [
            member('Bundle "Experimental CLI"', 0.98, ['cli', 'experimental']),
            member('Bundle "Experimental CLI" (#17034)', 0.97, ['cli', 'experimental']),
            member('Add `--cache` CLI option', 0.9, ['cli', 'cache']),
          ],
        ],
        ['c2', [member('Fix Markdown list indentation', 0.9, ['markdown', 'list'])]],
      ]),
    );
    expect(labels.get('c1')!.summary).toBe('Bundle "Experimental CLI"; Add `--cache` CLI option');
    expect(labels.get('c2')!.summary).toBe('Fix Markdown list indentation');
  });
});
