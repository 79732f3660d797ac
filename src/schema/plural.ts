/**
 * `1 point`, `3 points`: counts in the text people read. Here because every layer (CLI summaries, the
 * dashboard, chart notes) says how many of something, and src/schema is the one place they all may import.
 */

/** `n` and the noun, singular for exactly 1: plural(1, 'point') is `1 point`, plural(2, 'entry', 'entries'). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
