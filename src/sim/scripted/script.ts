import { readFile } from 'node:fs/promises';
import yaml from 'js-yaml';
import type * as z from 'zod';
import { InfxError } from '../../schema/errors.ts';
import {
  type ScriptedDefaults,
  type ScriptedScript,
  ScriptedScriptSchema,
} from '../../schema/scripted-script.ts';

/** A script that cannot be used: every line names the source and, for schema problems, the key path. */
export class ScriptError extends InfxError {
  constructor(readonly lines: readonly string[]) {
    super(lines.join('\n'), { lineByLine: true });
    this.name = 'ScriptError';
  }
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(top level)';
  return path.map((p) => String(p)).join('.');
}

function issueLines(source: string, error: z.ZodError): string[] {
  return error.issues.map((iss) => `${source}: ${formatPath(iss.path)}: ${iss.message}`);
}

/** Validates a script object (defaults filled in); throws ScriptError naming `source` and each key path. */
export function parseScript(input: unknown, source = 'script'): ScriptedScript {
  const parsed = ScriptedScriptSchema.safeParse(input);
  if (!parsed.success) throw new ScriptError(issueLines(source, parsed.error));
  return parsed.data;
}

function lineCol(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const col = offset - before.lastIndexOf('\n');
  return `${line}:${col}`;
}

/** Where JSON.parse gave up: its "position N" when it says, else where a YAML parser stops on the same text. */
function jsonErrorAt(text: string, message: string): string | null {
  const at = /at position (\d+)/.exec(message);
  if (at) return lineCol(text, Number(at[1]));
  try {
    yaml.load(text, { schema: yaml.JSON_SCHEMA });
  } catch (err) {
    if (err instanceof yaml.YAMLException) return `${err.mark.line + 1}:${err.mark.column + 1}`;
  }
  return null;
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const at = jsonErrorAt(text, message);
    throw new ScriptError([`${at === null ? path : `${path}:${at}`}: invalid JSON: ${message}`]);
  }
}

function parseYaml(text: string, path: string): unknown {
  try {
    return yaml.load(text, { schema: yaml.JSON_SCHEMA });
  } catch (err) {
    if (err instanceof yaml.YAMLException) {
      throw new ScriptError([
        `${path}:${err.mark.line + 1}:${err.mark.column + 1}: invalid YAML: ${err.reason}`,
      ]);
    }
    throw err;
  }
}

/** Reads a script file: JSON, or YAML when the name ends in .yaml/.yml. */
export async function loadScript(path: string): Promise<ScriptedScript> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ScriptError([
      `${path}: cannot read the script${code === 'ENOENT' ? ': no such file' : `: ${(err as Error).message}`}`,
    ]);
  }
  const data = /\.ya?ml$/i.test(path) ? parseYaml(text, path) : parseJson(text, path);
  return parseScript(data, path);
}

/** The settings request k follows: `defaults` with `requests["k"]` laid over them. */
export function settingsFor(script: ScriptedScript, k: number): ScriptedDefaults {
  const override = script.requests[String(k)];
  if (override === undefined) return script.defaults;
  const merged: Record<string, unknown> = { ...script.defaults };
  for (const [key, value] of Object.entries(override)) {
    if (value !== undefined) merged[key] = value;
  }
  return merged as ScriptedDefaults;
}
