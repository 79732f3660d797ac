import type { AgenticReplaySpec } from './agentic/replay-session.ts';
import { type ConversationSpec, createConversationDriver } from './conversation-driver.ts';
import type { DriverContext, PhaseDriver } from './driver.ts';
import { createFixedSeqLenDriver, type FixedSeqLenSpec, shareFixedSeqLen } from './fixed-seq-len-driver.ts';

/**
 * Every driver kind, chosen by `kind`: what the client (and each of its worker threads) builds a phase's
 * driver from. A new workload adds its spec to the union and a case to each switch.
 */

export type DriverSpec = FixedSeqLenSpec | ConversationSpec | AgenticReplaySpec;

/** A phase's drivers: warmup (nothing to send: null) and the measured phase. */
export interface DriverPhases {
  warmup: DriverSpec | null;
  benchmark: DriverSpec;
}

export function createDriver(spec: DriverSpec, ctx: DriverContext): PhaseDriver {
  switch (spec.kind) {
    case 'fixed-seq-len':
      return createFixedSeqLenDriver(spec, ctx);
    case 'conversations':
      return createConversationDriver(spec, ctx);
    case 'agentic-replay':
      return spec.session.driver(ctx.phase, ctx);
  }
}

/** The spec as worker threads get it: large parts in shared memory rather than copied per thread. */
export function shareSpec(spec: DriverSpec): DriverSpec {
  switch (spec.kind) {
    case 'fixed-seq-len':
      return shareFixedSeqLen(spec);
    case 'conversations':
      return spec;
    case 'agentic-replay':
      // A tree's calls depend on each other and the live scheduler holds them all: one thread plays them.
      throw new Error('the agentic replay runs on one client thread (workers 1): its spec cannot be shared');
  }
}
