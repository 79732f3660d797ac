/**
 * GSM8K grading and eval request rate, each next to a baseline measured in this same command:
 *
 *   (a) score only: `infx eval score`'s work (read the dataset and 1,319 saved responses, filter, exact
 *       match, aggregate) for the whole test set, synthetic but GSM8K-shaped. Baseline: reading and
 *       JSON-parsing the same two files. Target: under 1 s.
 *   (b) requests: 1,319 questions, 5-shot, against the scripted eval server in another process at
 *       concurrency 64: requests/s and the client's CPU per request. Baseline: the same bodies posted by a
 *       bare fetch loop at the same concurrency, with no prompt building or grading.
 *
 *   npm run bench:eval              # both
 *   npm run bench:eval -- --only a  # one of a, b
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { scoreGsm8k } from '../src/evals/api.ts';
import { chatMessages, fewshotDocs } from '../src/evals/gsm8k.ts';
import { requestBody, runEval } from '../src/evals/run.ts';
import type { GsmDoc } from '../src/schema/evals.ts';

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const N = 1319;
const dir = mkdtempSync(join(tmpdir(), 'infx-bench-eval-'));
const ms = (t0: number) => performance.now() - t0;

// GSM8K-shaped documents: a few sentences of question, a worked answer with <<calc>> markup, `#### N`.
const doc = (i: number): GsmDoc => {
  const a = 3 + (i % 17);
  const b = 120 + ((i * 37) % 900);
  const total = a * b;
  return {
    question: `Q${i}? A shop sells ${a} boxes of pencils each morning. Each box costs $${b}. The owner also pays rent of $${i % 50} every day and keeps the rest. How much money does the shop take in from boxes each morning?`,
    answer: `Each box costs $${b}.\nThe shop sells ${a} boxes, so it takes in ${a} * ${b} = <<${a}*${b}=${total}>>${total} dollars.\nThe rent does not change what the boxes bring in.\n#### ${total.toLocaleString('en-US')}`,
  };
};
const docs = Array.from({ length: N }, (_, i) => doc(i));
// The scripted server answers document Qi with `#### i`: (b) gives each question that answer.
const servedDoc = (i: number): GsmDoc => ({
  ...doc(i),
  answer: `${doc(i).answer.split('#### ')[0]}#### ${i}`,
});
const answerOf = (d: GsmDoc) => (d.answer.split('#### ')[1] as string).replace(/,/g, '');
const response = (d: GsmDoc, i: number): string => {
  const ans = answerOf(d);
  const reasoning = `Let me work through this step by step. The question gives the price of one box and the number of boxes sold. Multiplying them: ${ans}. The rent is a distraction.\n`;
  switch (i % 5) {
    case 0:
      return `${reasoning}#### ${ans}`;
    case 1:
      return `${reasoning}The answer is $${Number(ans).toLocaleString('en-US')}.`;
    case 2:
      return `${reasoning}#### ${Number(ans) + 1}`;
    case 3:
      return `${reasoning}####${ans}`;
    default:
      return `${reasoning}#### ${ans}.\n`;
  }
};

try {
  if (only === undefined || only === 'a') {
    const dataset = join(dir, 'test.jsonl');
    const responses = join(dir, 'responses.jsonl');
    writeFileSync(dataset, docs.map((d) => JSON.stringify(d)).join('\n'));
    writeFileSync(
      responses,
      docs.map((d, i) => JSON.stringify({ doc_id: i, response: response(d, i) })).join('\n'),
    );
    const best = (f: () => void) => {
      let t = Number.POSITIVE_INFINITY;
      for (let k = 0; k < 7; k++) {
        const t0 = performance.now();
        f();
        t = Math.min(t, ms(t0));
      }
      return t;
    };
    let strict = 0;
    const score = best(() => {
      strict = scoreGsm8k({ task: 'gsm8k', dataset, responses, fewshot: 5, gradeTruncated: false }).results
        .results.gsm8k?.['exact_match,strict-match'] as number;
    });
    const floor = best(() => {
      for (const f of [dataset, responses])
        for (const l of readFileSync(f, 'utf8').split('\n')) JSON.parse(l);
    });
    console.log(
      `(a) score only: ${N} responses graded in ${score.toFixed(1)} ms (${Math.round((N / score) * 1000).toLocaleString('en-US')} responses/s; ` +
        `${(1000 / score).toFixed(0)}x inside the 1 s target); baseline read + JSON.parse ${floor.toFixed(1)} ms, ` +
        `grading ${(score / floor).toFixed(2)}x of it; strict-match ${strict.toFixed(4)}`,
    );
  }

  if (only === undefined || only === 'b') {
    const child = spawn(process.execPath, ['scripts/run-ts.mjs', 'bench/eval-server.ts'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const url = await new Promise<string>((resolve) => {
      createInterface({ input: child.stdout }).once('line', (l) => resolve(l.trim()));
    });
    try {
      const train = Array.from({ length: 7473 }, (_, i) => doc(100000 + i));
      const options = {
        baseUrl: url,
        model: 'm',
        endpoint: 'chat' as const,
        concurrency: 64,
        limit: null,
        fewshot: 5,
        maxRetries: 5,
        timeoutMs: 60_000,
        maxTokens: 12288,
        fewshotAsMultiturn: true,
        gradeTruncated: false,
      };
      const served = docs.map((_, i) => servedDoc(i));
      await runEval(served.slice(0, 64), train, options); // warm the connections and the JIT
      let cpu0 = process.cpuUsage();
      let t0 = performance.now();
      const out = await runEval(served, train, options);
      const evalMs = ms(t0);
      const evalCpu = process.cpuUsage(cpu0);

      const shots = fewshotDocs(train, N, 5);
      const bodies = served.map((d, i) =>
        JSON.stringify(requestBody(chatMessages(d, shots[i] as GsmDoc[]), options)),
      );
      cpu0 = process.cpuUsage();
      t0 = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 64 }, async () => {
          while (next < N) {
            const body = bodies[next++] as string;
            const res = await fetch(`${url}/v1/chat/completions`, {
              method: 'POST',
              body,
              headers: { 'content-type': 'application/json' },
            });
            await res.json();
          }
        }),
      );
      const bareMs = ms(t0);
      const bareCpu = process.cpuUsage(cpu0);
      const cpuPerReq = (u: NodeJS.CpuUsage) => ((u.user + u.system) / 1000 / N).toFixed(3);
      console.log(
        `(b) requests: ${N} at concurrency 64 in ${(evalMs / 1000).toFixed(2)} s = ${Math.round((N / evalMs) * 1000)} requests/s, ` +
          `client CPU ${cpuPerReq(evalCpu)} ms/request; baseline bare fetch ${Math.round((N / bareMs) * 1000)} requests/s, ` +
          `${cpuPerReq(bareCpu)} ms/request; eval/bare time ${(evalMs / bareMs).toFixed(2)}x; ` +
          `strict-match ${(out.results.results.gsm8k?.['exact_match,strict-match'] ?? Number.NaN).toFixed(4)} (expected ${(880 / N).toFixed(4)}: every third answered wrong), failed ${out.results.infx.failed}`,
      );
    } finally {
      child.kill('SIGTERM');
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
