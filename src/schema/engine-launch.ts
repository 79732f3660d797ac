import * as z from 'zod';

/**
 * How one point's inference engine is started: the processes (argv, environment, files written first),
 * where the client reaches it and how readiness is probed. Rendered from a matrix row by src/engines,
 * recorded in each attempt's point.json, printed by `infx recipe render`.
 */

export const ENGINE_KINDS = ['sim', 'recipe'] as const;
export const ENGINE_ROLES = ['server', 'prefill', 'decode', 'router'] as const;
export const CONTAINER_RUNTIMES = ['none', 'docker', 'podman', 'srun'] as const;

export const EngineFileSchema = z.strictObject({
  path: z.string().describe('absolute, or relative to the attempt directory'),
  content: z.string(),
});

export const EngineProcessSchema = z.strictObject({
  role: z.enum(ENGINE_ROLES),
  argv: z.array(z.string()).min(1).describe('the exact command line, container wrapper included'),
  env: z.record(z.string(), z.string()).describe('variables set on top of the inherited environment'),
  files: z.array(EngineFileSchema).describe('written before the process starts (e.g. engine option files)'),
  port: z.int().positive().nullable().describe('the port it listens on; null when it serves no HTTP'),
  nodes: z.int().positive(),
  gpus: z.int().nonnegative().describe('GPUs this process (or its workers) occupies'),
  readyPath: z
    .string()
    .optional()
    .describe(
      "a worker behind the front (a router's backend): GET path on its own port that answers 200 once it serves; readiness probes it as well as the front",
    ),
});

export const EngineLaunchSchema = z.strictObject({
  kind: z.enum(ENGINE_KINDS),
  framework: z.string().describe("the row's framework, or 'sim'"),
  recipe: z.string().nullable().describe('the recipe script rendered (recipes/<engine>.sh); null for sim'),
  container: z.enum(CONTAINER_RUNTIMES),
  image: z.string().nullable(),
  processes: z.array(EngineProcessSchema).min(1).describe('started in this order; the last one is the front'),
  baseUrl: z.string().describe('what the client drives, e.g. http://127.0.0.1:8000'),
  readyPath: z.string().describe('GET path that answers 200 once the engine serves'),
  servedModel: z.string().describe('the model name requests carry'),
});

export type EngineFile = z.infer<typeof EngineFileSchema>;
export type EngineProcess = z.infer<typeof EngineProcessSchema>;
export type EngineLaunch = z.infer<typeof EngineLaunchSchema>;
export type EngineKind = (typeof ENGINE_KINDS)[number];
export type EngineRole = (typeof ENGINE_ROLES)[number];
export type ContainerRuntime = (typeof CONTAINER_RUNTIMES)[number];
