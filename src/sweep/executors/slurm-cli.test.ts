import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellJoin, shellQuote } from '../../engines/shell.ts';
import { JobScriptError, jobScript } from './slurm-cli.ts';
import {
  combineStates,
  normalizeState,
  parseExitCode,
  parseSacct,
  parseScontrolJobs,
  parseSqueue,
} from './slurm-parse.ts';

/** What bash makes of a command line: each argument as JSON, one per line. */
function bashArgv(line: string): string[] {
  const out = execFileSync('bash', ['-c', `for a in ${line}; do printf '%s\\0' "$a"; done`], {
    encoding: 'utf8',
  });
  return out.split('\0').slice(0, -1);
}

const TRICKY = [
  '',
  'plain',
  'two words',
  "it's",
  "''",
  "'",
  '"double" quotes',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${...} is the point
  '$HOME and ${PATH} and $(whoami) and `id`',
  'back\\slash\\',
  'glob * ? [a-z] {a,b}',
  '~user',
  'A=b',
  '--flag=value with space',
  'semi; colon & amp | pipe > redirect < in',
  '!history !!',
  'new\nline\ttab',
  '#comment',
  'ünïcødé ✓',
  'mixed \'single\' and "double" and $var',
  '-',
];

describe('shellQuote', () => {
  it('leaves safe words bare and quotes the rest', () => {
    expect(shellQuote('vllm')).toBe('vllm');
    expect(shellQuote('--port=8000')).toBe('--port=8000');
    expect(shellQuote('/a/b-c_d.e:f,g@h%i+j')).toBe('/a/b-c_d.e:f,g@h%i+j');
    expect(shellQuote('')).toBe("''");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
  });

  it('round-trips tricky strings through real bash, one argument each', () => {
    expect(bashArgv(shellJoin(TRICKY))).toEqual(TRICKY);
    for (const s of TRICKY) expect(bashArgv(shellQuote(s))).toEqual([s]);
  });

  it('refuses NUL bytes', () => {
    expect(() => shellQuote('a\0b')).toThrow(/NUL/);
  });
});

describe('jobScript', () => {
  const base = { name: 'p1', output: '/runs/r1/%j.log', workDir: '/runs/r1', command: ['echo', 'hi'] };

  it('writes the directives, then strict mode, cd, exports and an exec of the command', () => {
    const script = jobScript({
      ...base,
      error: '/runs/r1/%j.err',
      env: { HF_HOME: '/data/hf cache', TOKEN: "a'b" },
      command: ['vllm', 'serve', 'my model', '--max-num-seqs=256'],
      nodes: 2,
      ntasks: 2,
      cpusPerTask: 8,
      gpusPerNode: 4,
      timeLimitMinutes: 90,
      partition: 'gpu',
      account: 'bench',
      extraArgs: ['--exclusive', '--qos=high'],
    });
    expect(script.split('\n')).toEqual([
      '#!/bin/bash',
      '#SBATCH --job-name=p1',
      '#SBATCH --output=/runs/r1/%j.log',
      '#SBATCH --error=/runs/r1/%j.err',
      '#SBATCH --partition=gpu',
      '#SBATCH --account=bench',
      '#SBATCH --time=90',
      '#SBATCH --nodes=2',
      '#SBATCH --ntasks=2',
      '#SBATCH --cpus-per-task=8',
      '#SBATCH --gres=gpu:4',
      '#SBATCH --exclusive',
      '#SBATCH --qos=high',
      'set -euo pipefail',
      'cd -- /runs/r1',
      "export HF_HOME='/data/hf cache'",
      "export TOKEN='a'\\''b'",
      "exec vllm serve 'my model' --max-num-seqs=256",
      '',
    ]);
  });

  it('defaults to one node, stderr into the output file and no GPU line', () => {
    const script = jobScript(base);
    expect(script).toContain('#SBATCH --nodes=1\n');
    expect(script).toContain('#SBATCH --error=/runs/r1/%j.log\n');
    expect(script).not.toMatch(/gres|gpus/);
  });

  it('asks for GPUs the way the cluster wants', () => {
    expect(jobScript({ ...base, gpusPerNode: 8, gpuRequest: 'gpus-per-node' })).toContain(
      '#SBATCH --gpus-per-node=8\n',
    );
    expect(jobScript({ ...base, gpusPerNode: 8, gpuRequest: 'none' })).not.toMatch(/gres|gpus/);
    expect(jobScript({ ...base, gpusPerNode: 0 })).not.toMatch(/gres|gpus/);
  });

  it('double-quotes #SBATCH values with spaces and refuses ones sbatch cannot read', () => {
    expect(jobScript({ ...base, name: 'my job', output: '/tmp/a b/%j.out' })).toContain(
      '#SBATCH --job-name="my job"\n#SBATCH --output="/tmp/a b/%j.out"\n',
    );
    expect(() => jobScript({ ...base, name: 'a\nb' })).toThrow(JobScriptError);
    expect(() => jobScript({ ...base, output: 'say "hi"' })).toThrow(/cannot go in an #SBATCH line/);
  });

  it('separates heterogeneous components with #SBATCH hetjob, each with its own nodes and GPUs', () => {
    const script = jobScript({
      ...base,
      partition: 'gpu',
      gpuRequest: 'gpus-per-node',
      extraArgs: ['--exclusive'],
      components: [
        { nodes: 1, ntasks: 1, gpusPerNode: 8 },
        { nodes: 2, ntasks: 4, gpusPerNode: 4, partition: 'gpu-big', extraArgs: ['--constraint=h200'] },
      ],
    });
    const directives = script.split('\n').filter((l) => l.startsWith('#SBATCH'));
    expect(directives).toEqual([
      '#SBATCH --job-name=p1',
      '#SBATCH --output=/runs/r1/%j.log',
      '#SBATCH --error=/runs/r1/%j.log',
      '#SBATCH --partition=gpu',
      '#SBATCH --nodes=1',
      '#SBATCH --ntasks=1',
      '#SBATCH --gpus-per-node=8',
      '#SBATCH --exclusive',
      '#SBATCH hetjob',
      '#SBATCH --partition=gpu-big',
      '#SBATCH --nodes=2',
      '#SBATCH --ntasks=4',
      '#SBATCH --gpus-per-node=4',
      '#SBATCH --exclusive',
      '#SBATCH --constraint=h200',
    ]);
  });

  it('validates extra args, counts, env names and the command', () => {
    expect(() => jobScript({ ...base, extraArgs: ['-N2'] })).toThrow(/must be one line starting with --/);
    expect(() => jobScript({ ...base, extraArgs: ['--x\n#SBATCH --y'] })).toThrow(JobScriptError);
    expect(() => jobScript({ ...base, nodes: 0 })).toThrow(/nodes must be an integer/);
    expect(() => jobScript({ ...base, gpusPerNode: 1.5 })).toThrow(/gpusPerNode/);
    expect(() => jobScript({ ...base, env: { 'BAD-NAME': 'x' } })).toThrow(/BAD-NAME/);
    expect(() => jobScript({ ...base, command: [] })).toThrow(/empty/);
  });

  it('produces a script bash accepts, running the command with the env in the work dir', () => {
    const script = jobScript({
      ...base,
      workDir: '/',
      env: { WEIRD: TRICKY.join('|') },
      command: ['bash', '-c', 'printf "%s\\n" "$PWD" "$WEIRD" "$@"', 'argv0', ...TRICKY],
    });
    const out = execFileSync('bash', ['-c', script], { encoding: 'utf8' });
    expect(out).toBe(`/\n${TRICKY.join('|')}\n${TRICKY.join('\n')}\n`);
  });
});

describe('state parsing', () => {
  it('normalizes Slurm states, short codes and decorations', () => {
    expect(normalizeState('RUNNING')).toBe('RUNNING');
    expect(normalizeState('CANCELLED by 0')).toBe('CANCELLED');
    expect(normalizeState('cancelled+')).toBe('CANCELLED');
    expect(normalizeState('PD')).toBe('PENDING');
    expect(normalizeState('CG')).toBe('COMPLETING');
    expect(normalizeState('OUT_OF_MEMORY')).toBe('OUT_OF_MEMORY');
    expect(normalizeState('OOM')).toBe('OUT_OF_MEMORY');
    expect(normalizeState('BOOT_FAIL')).toBe('NODE_FAIL');
    expect(normalizeState('DEADLINE')).toBe('TIMEOUT');
    expect(normalizeState('REQUEUED')).toBe('PENDING');
    expect(normalizeState('SUSPENDED')).toBe('RUNNING');
    expect(normalizeState('  ')).toBe('UNKNOWN');
    expect(normalizeState('SOMETHING_NEW')).toBe('UNKNOWN');
  });

  it('reads exit codes as status, or 128 + signal', () => {
    expect(parseExitCode('0:0')).toBe(0);
    expect(parseExitCode('3:0')).toBe(3);
    expect(parseExitCode('0:15')).toBe(143);
    expect(parseExitCode('')).toBeNull();
    expect(parseExitCode(undefined)).toBeNull();
  });

  it('parses squeue lines, combining hetjob components and keeping | in reasons', () => {
    const text = [
      '41|RUNNING|vm|None',
      '42|PENDING||Resources',
      '43+0|RUNNING|gpu01|None',
      '43+1|PENDING||(odd|reason)',
      '',
      'garbage',
    ].join('\n');
    const states = parseSqueue(text);
    expect([...states.keys()]).toEqual(['41', '42', '43']);
    expect(states.get('41')).toEqual({ state: 'RUNNING', exitCode: null, reason: null, nodes: 'vm' });
    expect(states.get('42')).toEqual({ state: 'PENDING', exitCode: null, reason: 'Resources', nodes: null });
    expect(states.get('43')).toEqual({
      state: 'RUNNING',
      exitCode: null,
      reason: '(odd|reason)',
      nodes: 'gpu01',
    });
  });

  it('parses scontrol show job -o lines (real 22.05 output)', () => {
    const failed =
      'JobId=3 JobName=t1 UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901757 Nice=0 Account=(null) ' +
      'QOS=(null) JobState=FAILED Reason=NonZeroExitCode Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 ' +
      'Reboot=0 ExitCode=3:0 RunTime=00:00:01 TimeLimit=UNLIMITED NodeList=vm BatchHost=vm NumNodes=1 ' +
      'Command=/tmp/my dir/j.sh WorkDir=/tmp/my dir StdOut=/tmp/sj/out-3.txt Power= ';
    expect(parseScontrolJobs(failed).get('3')).toEqual({
      state: 'FAILED',
      exitCode: 3,
      reason: 'NonZeroExitCode',
      nodes: 'vm',
    });
    const cancelled =
      'JobId=13 HetJobId=12 HetJobOffset=1 JobName=x JobState=CANCELLED Reason=None ExitCode=0:15';
    const running = 'JobId=12 HetJobId=12 HetJobOffset=0 JobName=x JobState=RUNNING Reason=None ExitCode=0:0';
    expect(parseScontrolJobs(`${running}\n${cancelled}\n`).get('12')).toEqual({
      state: 'RUNNING',
      exitCode: null,
      reason: null,
      nodes: null,
    });
    expect(
      parseScontrolJobs('JobId=5 JobState=PENDING Reason=Priority ExitCode=0:0 NodeList=(null)').get('5'),
    ).toEqual({ state: 'PENDING', exitCode: null, reason: 'Priority', nodes: null });
  });

  it('parses sacct -P lines, ignoring steps', () => {
    const text = [
      '7|COMPLETED|0:0|vm|None',
      '7.batch|COMPLETED|0:0|vm|',
      '8|CANCELLED by 0|0:15|None assigned|None',
    ];
    const states = parseSacct(text.join('\n'));
    expect(states.get('7')).toEqual({ state: 'COMPLETED', exitCode: 0, reason: null, nodes: 'vm' });
    expect(states.get('8')).toEqual({ state: 'CANCELLED', exitCode: 143, reason: null, nodes: null });
  });

  it('combines components: still active wins, then the failure', () => {
    const s = (state: 'COMPLETED' | 'FAILED' | 'RUNNING', exitCode: number | null) => ({
      state,
      exitCode,
      reason: null,
      nodes: null,
    });
    expect(combineStates(s('COMPLETED', 0), s('FAILED', 2)).state).toBe('FAILED');
    expect(combineStates(s('FAILED', 2), s('COMPLETED', 0)).exitCode).toBe(2);
    expect(combineStates(s('COMPLETED', 0), s('RUNNING', null)).state).toBe('RUNNING');
  });
});
