import * as z from 'zod';
import { closed } from './zod-helpers.ts';

/**
 * CI priority policy (`configs/ci-priority.yaml` in the reference; matrix-spec §11): higher scores run
 * first. Same file format as the reference's.
 */

const score = () => z.number({ error: 'expected a number' });
const table = () => z.record(z.string(), score()).default({});

export const CiPriorityPolicySchema = closed({
  version: z.literal(1, { error: (iss) => `Unsupported CI priority policy version: ${String(iss.input)}` }),
  'base-score': score(),
  adjustments: closed({
    event: table(),
    'multi-node': score().default(0),
    agentic: score().default(0),
    'eval-only': score().default(0),
    precision: table(),
    'spec-decoding': table(),
    'framework-prefix': table().describe(
      'first key (in file order) equal to the framework or a "<key>-" prefix of it wins',
    ),
    'model-prefix': table().describe('exact match'),
  }),
  labels: closed({
    'skip-queue': closed({ name: z.string() }),
    'checklist-complete': closed({ names: z.array(z.string()), adjustment: score() }),
    patchwork: closed({
      names: z.array(z.string()),
      score: score(),
      'waived-by': z.array(z.string()).default([]),
    }),
  }),
});

export type CiPriorityPolicy = z.output<typeof CiPriorityPolicySchema>;
