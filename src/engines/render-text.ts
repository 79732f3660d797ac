import { dirname } from 'node:path';
import type { EngineFile, EngineLaunch, EngineProcess } from '../schema/engine-launch.ts';
import { shellJoin, shellQuote } from './shell.ts';

/**
 * An engine launch as shell a user can paste: per process a header, its exports, its files as heredocs
 * and its command on one line. Processes are listed in start order; the last one is the front.
 */

/** A heredoc terminator that no line of the content equals. */
function delimiter(content: string): string {
  const lines = new Set(content.split('\n'));
  let tag = 'INFX_EOF';
  for (let i = 1; lines.has(tag); i++) tag = `INFX_EOF_${i}`;
  return tag;
}

function fileText(f: EngineFile): string {
  const tag = delimiter(f.content);
  const body = f.content.endsWith('\n') || f.content === '' ? f.content : `${f.content}\n`;
  return `mkdir -p ${shellQuote(dirname(f.path))}\ncat > ${shellQuote(f.path)} <<'${tag}'\n${body}${tag}\n`;
}

function header(p: EngineProcess, i: number, n: number): string {
  const gpus = `${p.gpus} GPU${p.gpus === 1 ? '' : 's'}`;
  const nodes = `${p.nodes} node${p.nodes === 1 ? '' : 's'}`;
  const port = p.port === null ? 'no HTTP port' : `port ${p.port}`;
  const front = i === n - 1 ? ', front' : '';
  return `# [${i + 1}/${n}] ${p.role}: ${gpus}, ${nodes}, ${port}${front}\n`;
}

export function formatLaunchText(launch: EngineLaunch): string {
  const n = launch.processes.length;
  let out =
    `# ${launch.framework} via ${launch.recipe ?? 'no recipe'}, container ${launch.container}` +
    `${launch.image ? `, image ${launch.image}` : ''}\n` +
    `# client: ${launch.baseUrl} (ready: GET ${launch.readyPath}), model ${launch.servedModel}\n`;
  launch.processes.forEach((p, i) => {
    out += `\n${header(p, i, n)}`;
    for (const [k, v] of Object.entries(p.env)) out += `export ${k}=${shellQuote(v)}\n`;
    for (const f of p.files) out += fileText(f);
    out += `${shellJoin(p.argv)}\n`;
  });
  return out;
}
