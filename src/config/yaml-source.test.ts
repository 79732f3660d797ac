import { describe, expect, it } from 'vitest';
import { YAML_LIMITS } from './limits.ts';
import { parseYaml } from './yaml-source.ts';

const only = (text: string) => {
  const p = parseYaml('f.yaml', text);
  return { value: p.value, d: p.diagnostics[0] };
};

describe('parseYaml bounds', () => {
  it('leaves ordinary documents alone', () => {
    const { value, d } = only('a: &x [1, 2]\nb: *x\nc: { d: "e" }\n');
    expect(d).toBeUndefined();
    expect(value).toEqual({ a: [1, 2], b: [1, 2], c: { d: 'e' } });
  });

  it('nesting: the limit itself parses, one more level is yaml.too-deep at its line', () => {
    // Levels as the parser counts them: the document and the scalar at the bottom count too.
    const lists = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}\n`;
    expect(only(lists(YAML_LIMITS.maxDepth - 2)).d).toBeUndefined();
    expect(only(lists(YAML_LIMITS.maxDepth - 1)).d).toMatchObject({ rule: 'yaml.too-deep' });
    const { value, d } = only(`a: 1\nb: ${'['.repeat(YAML_LIMITS.maxDepth)}\n`);
    expect(value).toBeUndefined();
    expect(d).toMatchObject({ rule: 'yaml.too-deep', line: 2 });
  });

  it('aliases: each use counts once, the limit parses and one more is refused where it stands', () => {
    const aliases = (n: number) => `a: &a [1]\nk:\n${'  - *a\n'.repeat(n)}`;
    expect(only(aliases(YAML_LIMITS.maxAliases)).d).toBeUndefined();
    expect(only(aliases(YAML_LIMITS.maxAliases + 1)).d).toMatchObject({
      rule: 'yaml.too-many-aliases',
      line: YAML_LIMITS.maxAliases + 3,
    });
  });

  it('counts what aliases expand to (a billion laughs)', () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i <= 6; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    expect(only(lines.join('\n')).d).toMatchObject({ rule: 'yaml.too-large', line: null });
  });

  it('refuses more nodes than the bound and over-long scalars', () => {
    expect(only(`k: [${'1,'.repeat(YAML_LIMITS.maxNodes)}1]\n`).d).toMatchObject({
      rule: 'yaml.too-large',
      line: 1,
    });
    expect(only(`a: 1\nb: ${'x'.repeat(YAML_LIMITS.maxScalarChars + 1)}\n`).d).toMatchObject({
      rule: 'yaml.scalar-too-long',
      line: 2,
    });
  });

  it('keeps the bounds on the duplicate-key path', () => {
    const p = parseYaml('f.yaml', 'a: 1\na: 2\n');
    expect(p.diagnostics.map((d) => d.rule)).toEqual(['yaml.duplicate-key']);
    expect(p.value).toEqual({ a: 2 });
  });
});
