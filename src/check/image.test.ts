import { describe, expect, it } from 'vitest';
import { classifyImage, parseImageRef } from './image.ts';

describe('image pinning', () => {
  it.each([
    'vllm/vllm-openai:v0.11.0',
    'lmsysorg/sglang:v0.5.12-rocm700-mi35x',
    'nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc14',
    'nvcr.io#nvidia/ai-dynamo/tensorrtllm-runtime:1.3.0-dev.1-cuda13',
    'rocm/sgl-dev:sglang-0.5.9-rocm720-mi35x-mori-0227-2',
    'vllm/vllm-openai-rocm:nightly-rocm100-3df4ae153eb385e27b52f26c81f8edb9e20b9984',
    'vllm/vllm-openai:nightly-dev-arm64-cu13.0.1-75c2eef',
    'lmsysorg/sglang:nightly-dev-cu13-20260805-211ee642',
    'lmsysorg/sglang:latest@sha256:5027e95bf6ec536856b1b52a91d1f35ff5c564ab83e8a94758a169ff09bb8df3',
    'registry.local:5000/team/engine@sha256:5027e95bf6ec536856b1b52a91d1f35ff5c564ab83e8a94758a169ff09bb8df3',
  ])('%s is pinned', (image) => {
    expect(classifyImage(image).kind).toBe('pinned');
  });

  it.each([
    ['vllm/vllm-openai:latest', 'moving'],
    ['vllm/vllm-openai:nightly', 'moving'],
    ['ghcr.io/org/engine:main', 'moving'],
    ['vllm/vllm-openai-rocm:nightly-rocm', 'moving'],
    ['lmsysorg/sglang:latest-cu130', 'moving'],
    ['vllm/vllm-openai', 'no tag'],
    ['registry.local:5000/team/engine', 'no tag'],
    ['vllm/vllm-openai@sha1:abc', 'not a sha256 digest'],
  ])('%s is unpinned (%s)', (image, why) => {
    const v = classifyImage(image);
    expect(v).toMatchObject({ kind: 'unpinned', rule: 'image.unpinned' });
    expect(v.why).toContain(why);
  });

  it('warns on a dated channel tag and on a tag that names no build', () => {
    expect(classifyImage('rocm/atom-dev:nightly_202607231538')).toMatchObject({ rule: 'image.dated-tag' });
    expect(classifyImage('lmsysorg/sglang:dev-nightly-0820')).toMatchObject({ rule: 'image.dated-tag' });
    expect(classifyImage('vllm/vllm-openai:kimi-k3')).toMatchObject({ rule: 'image.unversioned-tag' });
  });

  it('splits registry ports, enroot # paths, tags and digests', () => {
    expect(parseImageRef('registry.local:5000/a/b')).toEqual({
      repository: 'registry.local:5000/a/b',
      tag: null,
      digest: null,
    });
    expect(parseImageRef('nvcr.io#nvidia/x:1.0@sha256:ab')).toEqual({
      repository: 'nvcr.io#nvidia/x',
      tag: '1.0',
      digest: 'sha256:ab',
    });
  });
});
