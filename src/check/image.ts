/**
 * Image pinning: a benchmark point must name the exact software it measured, so its image reference has to
 * resolve to the same bytes next month. The policy, decided here and listed in the rules table (rules.ts):
 *
 * - a `@sha256:` digest pins the image whatever the tag says → pass;
 * - no tag (Docker resolves `:latest`) → error `image.unpinned`;
 * - a tag that is a moving channel (`latest`, `nightly`, `main`, `master`, `dev`, `edge`, `stable`, `head`,
 *   `rolling`, `unstable`, alone or combined only with platform words such as `nightly-rocm` or
 *   `latest-cu130`) → error `image.unpinned`;
 * - a channel tag that carries a commit id (`nightly-3df4ae15…`, `nightly-dev-cu13-20260805-211ee642`) is
 *   a per-commit build, which registries do not re-push → pass;
 * - a tag that starts with, or has after a separator, the product's dotted version passes (`v0.11.0`,
 *   `1.3.0rc14`, `1.3.0-dev.1-cuda13`, `0.5.12-rocm700-mi35x`): words after a version are prerelease
 *   names, not channels;
 * - a channel tag with only a date (`nightly_202607231538`, `dev-nightly-0820`) → warning
 *   `image.dated-tag`: a dated channel tag names a day's build but is a tag, not a digest; some channels
 *   re-push within the day. Add the digest to make it immutable;
 * - any other tag passes when it names a commit or a date; one that names none of a version, commit or date
 *   (`kimi-k3`) → warning `image.unversioned-tag`: a named tag can be moved to a new build at any time.
 */

export type ImageVerdict =
  | { kind: 'pinned'; why: string }
  | { kind: 'unpinned'; rule: 'image.unpinned'; why: string }
  | { kind: 'weak'; rule: 'image.dated-tag' | 'image.unversioned-tag'; why: string };

/** Tags that name a channel, not a build. */
export const FLOATING_TAG_WORDS: ReadonlySet<string> = new Set([
  'latest',
  'nightly',
  'main',
  'master',
  'dev',
  'edge',
  'stable',
  'head',
  'rolling',
  'unstable',
]);

const DIGEST = /@sha256:[0-9a-f]{64}$/i;
/** A git commit id: 7–40 hex digits with at least one letter (so plain numbers and dates are not taken). */
const COMMIT = /^(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}$/i;
/** A date or timestamp: YYYYMMDD (optionally hours, minutes, seconds), or a bare MMDD. */
const DATE =
  /^(20\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(\d{2}){0,3}|(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01]))$/;
/**
 * The product's own dotted version (v0.11.0, 1.3.0rc14, 1.3.0-dev.1, sglang-0.5.9-…): at the start of the
 * tag or after a separator. Platform versions glued to a word (cu13.0.1, rocm7.2.3, py3.12) do not count.
 */
const VERSION = /(^|[-_])v?\d+\.\d+/i;

export interface ImageRef {
  /** Repository part (registry and path), as written. */
  repository: string;
  tag: string | null;
  digest: string | null;
}

/** Splits `registry[:port]/path[:tag][@sha256:…]`; enroot's `host#path` spelling is accepted as is. */
export function parseImageRef(image: string): ImageRef {
  let rest = image.trim();
  let digest: string | null = null;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  const slash = Math.max(rest.lastIndexOf('/'), rest.lastIndexOf('#'));
  const colon = rest.lastIndexOf(':');
  if (colon > slash) return { repository: rest.slice(0, colon), tag: rest.slice(colon + 1), digest };
  return { repository: rest, tag: null, digest };
}

export function classifyImage(image: string): ImageVerdict {
  if (DIGEST.test(image.trim())) return { kind: 'pinned', why: 'pinned by digest' };
  const { tag, digest } = parseImageRef(image);
  if (digest !== null) {
    return { kind: 'unpinned', rule: 'image.unpinned', why: `'@${digest}' is not a sha256 digest` };
  }
  if (tag === null || tag === '') {
    return { kind: 'unpinned', rule: 'image.unpinned', why: 'no tag, so the registry serves :latest' };
  }
  // A released version with a prerelease word after it (1.3.0-dev.1) is a version, not a channel.
  if (VERSION.test(tag)) return { kind: 'pinned', why: 'versioned tag' };
  const words = tag.toLowerCase().split(/[-_.]+/);
  const channel = words.find((w) => FLOATING_TAG_WORDS.has(w));
  const commit = words.some((w) => COMMIT.test(w));
  const date = words.some((w) => DATE.test(w));
  if (channel !== undefined) {
    if (commit) return { kind: 'pinned', why: 'per-commit channel build' };
    if (date) {
      return {
        kind: 'weak',
        rule: 'image.dated-tag',
        why: `'${tag}' is a dated '${channel}' tag: it names a day's build, but a tag can be re-pushed`,
      };
    }
    return {
      kind: 'unpinned',
      rule: 'image.unpinned',
      why: `'${tag}' is the moving '${channel}' channel: it points at a different build every release`,
    };
  }
  if (commit || date) return { kind: 'pinned', why: 'commit or dated tag' };
  return {
    kind: 'weak',
    rule: 'image.unversioned-tag',
    why: `'${tag}' names no version, commit or date: it can be moved to a new build at any time`,
  };
}
