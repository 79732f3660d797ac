import { INFX_VERSION } from '../schema/version.ts';

/**
 * Revision of the simulated engine's behaviour (performance model, scheduler, clock). Bump it with any
 * change that moves a simulated figure, so stored simulated results say which simulator produced them.
 */
export const SIM_MODEL_REVISION = 9;

/** What a simulated engine announces as `x-infx-simulator` and results record as `engine.simulator`. */
export const SIMULATOR_VERSION = `infx-sim/${INFX_VERSION}+m${SIM_MODEL_REVISION}`;

/** What infx's scripted test server (`infx sim scripted`) announces: its results are not a GPU's either. */
export const SCRIPTED_VERSION = `infx-scripted/${INFX_VERSION}`;
