/**
 * What a simulated engine tells its clients beyond the OpenAI API: it runs faster than real time by
 * this factor (on every response, and as `infx.time_scale` in /v1/models), so latencies a client
 * measures are wall time, and wall time × scale is simulated time.
 */
export const TIME_SCALE_HEADER = 'x-infx-time-scale';
