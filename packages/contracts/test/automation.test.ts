import { describe, expect, it } from 'vitest';
import { isAutomationName } from '../src/index.js';

describe('isAutomationName', () => {
  it('names automation by a [bot] suffix, "bot" as a word of its own, or a well-known account', () => {
    for (const name of ['renovate[bot]', 'StepSecurity Bot', 'stepsecurity-bot', 'renovate-bot', 'snyk_bot', 'DeployBot', 'bot', 'dependabot', 'web-flow', 'GitHub Actions']) {
      expect(isAutomationName(name), name).toBe(true);
    }
  });

  it('does not take a person whose name only ends in the letters for a bot', () => {
    for (const name of ['Talbot', 'abbot', 'Sam Abbott', 'botanist', 'fisker Cheung', 'sosukesuzuki', '', undefined]) {
      expect(isAutomationName(name), String(name)).toBe(false);
    }
  });

  it('matches the list of well-known accounts only when asked to (a full name is not a login)', () => {
    expect(isAutomationName('linear')).toBe(true);
    expect(isAutomationName('linear', { known: false })).toBe(false);
    expect(isAutomationName('StepSecurity Bot', { known: false })).toBe(true);
  });
});
