import { describe, expect, it } from 'vitest';
import { githubRepoOfUrl } from './git-branch.ts';

/** The repository a remote names, for --repo's default. */
describe('githubRepoOfUrl', () => {
  it('reads owner/name from the URL forms git accepts for GitHub, and nothing else', () => {
    for (const url of [
      'https://github.com/SemiAnalysisAI/InferenceX.git',
      'https://github.com/SemiAnalysisAI/InferenceX',
      'https://x-access-token:abc@github.com/SemiAnalysisAI/InferenceX.git',
      'git@github.com:SemiAnalysisAI/InferenceX.git',
      'ssh://git@github.com/SemiAnalysisAI/InferenceX.git',
    ])
      expect(githubRepoOfUrl(url), url).toBe('SemiAnalysisAI/InferenceX');
    expect(githubRepoOfUrl('https://github.com/o/my.repo.git')).toBe('o/my.repo');
    for (const url of [
      '/tmp/remote.git',
      'https://gitlab.com/o/r.git',
      'https://github.com/o',
      'file:///x/y',
    ])
      expect(githubRepoOfUrl(url), url).toBeNull();
  });
});
