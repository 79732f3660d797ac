/** A one-row agentic-coding master config on the simulated fleet (2 users): the agentic CLI tests sweep it. */
export const AGENTIC_SIM_CONFIG = `dsv4flash-fp8-h200-vllm-agentic:
  image: vllm/vllm-openai:v0.25.0
  model: deepseek-ai/DeepSeek-V4-Flash
  model-prefix: dsv4flash
  runner: cluster:h200-sim
  precision: fp8
  framework: vllm
  multinode: false
  scenarios:
    agentic-coding:
      - search-space:
          - { tp: 8, kv-offloading: none, conc-list: [2] }
`;
