import type { Endpoint } from './stream-reader.ts';

export { buildPayload, type PayloadOptions } from '../workload/payload.ts';

/** Where each endpoint is served. (Bodies are the workload's: workload/payload.ts.) */
export function endpointPath(endpoint: Endpoint): string {
  return endpoint === 'chat' ? '/v1/chat/completions' : '/v1/completions';
}
