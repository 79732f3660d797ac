import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PublicCorpus } from '../../src/workload/agentic/hf-corpus.ts';
import { writeSynthCorpusFile } from '../../src/workload/agentic/synth.ts';

/**
 * A public corpus in a fake Hugging Face cache under `home` (use as HF_HOME), laid out as huggingface_hub
 * lays a dataset out: `hub/datasets--<org>--<name>/snapshots/<commit>/traces.jsonl` and `refs/main`. The
 * traces are a few synthetic ones within a 256k context. Returns the traces file.
 */
export function fakePublicCorpus(home: string, corpus: PublicCorpus, seed = 1, traces = 2): string {
  const commit = `${seed.toString(16).padStart(2, '0')}${'c0ffee'.repeat(6)}`.slice(0, 40);
  const repo = join(home, 'hub', `datasets--${corpus.dataset.split('/').join('--')}`);
  const snapshot = join(repo, 'snapshots', commit);
  mkdirSync(snapshot, { recursive: true });
  mkdirSync(join(repo, 'refs'), { recursive: true });
  writeFileSync(join(repo, 'refs', 'main'), commit);
  const file = join(snapshot, 'traces.jsonl');
  writeSynthCorpusFile({ traces, seed, maxContext: 262144 }, file);
  return file;
}
