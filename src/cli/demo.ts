import type { Command } from 'commander';
import type { CliIO } from './io.ts';

/** `infx demo` (npm run demo): the one-command demo lands with the simulated engine, store and dashboard. */
export function registerDemo(program: Command, io: CliIO): void {
  program
    .command('demo')
    .description(
      'run the demo: a sweep on the simulated engine, results in SQLite, the dashboard on localhost',
    )
    .action(() => {
      io.stdout(
        [
          'infx demo: not yet available.',
          'The demo needs the results store and the dashboard, which have not landed yet.',
          'What works today:',
          '  infx validate --config-files <master.yaml...> --runner-config <runners.yaml>',
          '  infx matrix full-sweep --config-files <master.yaml...> --runner-config <runners.yaml>',
          '  infx matrix full-sweep ... | infx matrix plan --labels full-sweep-fail-fast',
          '  infx check --config-files <master.yaml...> --runner-config <runners.yaml>',
          '  infx matrix full-sweep ... | infx sim predict',
          '  infx sim serve --model meta-llama/Llama-3.1-8B-Instruct --hardware h100 --time-scale 10 --port 8000 &',
          '  infx bench --base-url http://127.0.0.1:8000 --model meta-llama/Llama-3.1-8B-Instruct \\',
          '    --isl 1024 --osl 128 --concurrency 8 --gpus 1 --out runs/demo-c8',
          '  infx sweep --config-files examples/sim-master.yaml --runner-config examples/runners.yaml \\',
          '    --sim-time-scale 20 --out runs        (then: infx sweep status runs/<run-id>)',
          '  infx recipe render --point row.json   (the vLLM/SGLang/TensorRT-LLM command of a matrix row)',
          '',
        ].join('\n'),
      );
    });
}
