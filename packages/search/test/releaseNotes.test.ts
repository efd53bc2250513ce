import { describe, expect, it } from 'vitest';
import { toCandidate, type ItemRow, type PooledWithSignals } from '../src/candidates.js';
import { writesReleaseNote } from '../src/rank/releaseNotes.js';

describe('writesReleaseNote', () => {
  it('recognises the entry directories of changelog tools', () => {
    expect(writesReleaseNote(['src/language-js/print.js', 'changelog_unreleased/javascript/19652.md'])).toBe(true);
    expect(writesReleaseNote(['.changeset/brave-lions-sing.md'])).toBe(true);
    expect(writesReleaseNote(['newsfragments/1234.feature'])).toBe(true);
    expect(writesReleaseNote(['changelog.d/20240101_fix_parser.rst'])).toBe(true);
    expect(writesReleaseNote(['.changes/unreleased/Fixed-20240101.yaml'])).toBe(true);
    expect(writesReleaseNote(['releasenotes/notes/fix-timeout-0a1b2c.yaml'])).toBe(true);
    expect(writesReleaseNote(['changelogs/unreleased/fix-merge-widget.yml'])).toBe(true);
  });

  it('knows a changelog entry directory by the convention, not by one repository\'s name for it', () => {
    expect(writesReleaseNote(['changelog-entries/4821.md'])).toBe(true);
    expect(writesReleaseNote(['changelog_pending/fix-cache.md'])).toBe(true);
    expect(writesReleaseNote(['changelog-unreleased/css/17.md'])).toBe(true);
    // A word that only starts like it is not the convention.
    expect(writesReleaseNote(['changelogger/notes.md'])).toBe(false);
  });

  it('recognises a changelog file anywhere in the tree', () => {
    expect(writesReleaseNote(['CHANGELOG.md'])).toBe(true);
    expect(writesReleaseNote(['packages/cli/CHANGES.rst'])).toBe(true);
    expect(writesReleaseNote(['NEWS'])).toBe(true);
  });

  it('does not mistake code, tool configuration or a directory README for an entry', () => {
    expect(writesReleaseNote([])).toBe(false);
    expect(writesReleaseNote(['package.json', 'yarn.lock'])).toBe(false);
    expect(writesReleaseNote(['src/history.ts', 'src/news/feed.ts'])).toBe(false);
    expect(writesReleaseNote(['src/changes/diff.ts'])).toBe(false);
    expect(writesReleaseNote(['.changeset/config.json', '.changeset/README.md'])).toBe(false);
    expect(writesReleaseNote(['changelog_unreleased/TEMPLATE.md'])).toBe(false);
  });
});

describe('toCandidate', () => {
  const pooled = (type: string): PooledWithSignals => ({ row: { id: `${type}-1`, type, occurredAt: Date.parse('2025-01-01T00:00:00Z') }, paths: { lexical: 0.5, vector: 0, entity: 0, cluster: 0, actor: 0 }, signals: {} });
  const row = (type: string, files: string[]): ItemRow => ({
    id: `${type}-1`,
    type,
    source: 'github',
    title: 'Fix parens',
    snippet: '',
    content: '',
    url: '',
    occurred_at: '2025-01-01T00:00:00Z',
    actor_names: [],
    files,
    metadata: {},
  });
  const now = new Date('2025-02-01T00:00:00Z');

  it('marks a pull request or commit that wrote a release note, and nothing else', () => {
    expect(toCandidate(pooled('pull_request'), row('pull_request', ['src/a.js', 'changelog_unreleased/js/1.md']), 0.5, now).signals.releaseNote).toBe(1);
    expect(toCandidate(pooled('commit'), row('commit', ['CHANGELOG.md']), 0.5, now).signals.releaseNote).toBe(1);
    expect(toCandidate(pooled('pull_request'), row('pull_request', ['src/a.js']), 0.5, now).signals.releaseNote).toBe(0);
    // The changelog itself, synced as a document, is not a change that wrote one.
    expect(toCandidate(pooled('document'), row('document', ['CHANGELOG.md']), 0.5, now).signals.releaseNote).toBe(0);
    // A candidate whose row was not read carries no claim either way.
    expect(toCandidate(pooled('pull_request'), undefined, 0.5, now).signals.releaseNote).toBe(0);
  });
});
