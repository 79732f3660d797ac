#!/usr/bin/env bash
# TensorRT-LLM: `trtllm-serve` (framework trt) with its options in an --extra_llm_api_options YAML,
# `python3 -m dynamo.trtllm` workers behind the Dynamo frontend (dynamo-trt), and
# `trtllm-serve disaggregated` in front of context (prefill) and generation (decode) servers.
# Inputs and the render protocol: recipes/lib.sh.

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
INFX_RECIPE=trt.sh

infx_require INFX_ROLE INFX_MODEL INFX_SERVED_MODEL_NAME INFX_HOST INFX_CONC INFX_WORK_DIR

dynamo=false
if [[ "${INFX_FRAMEWORK:-}" == dynamo-* ]]; then dynamo=true; fi

# A YAML list of host:port entries from space-separated URLs (URLs never contain spaces).
url_list() {
  local url
  for url in $1; do printf '    - "%s"\n' "${url#*://}"; done
}

router() {
  infx_require INFX_PORT
  if [[ "$dynamo" == true ]]; then
    local args=(python3 -m dynamo.frontend --http-port "$INFX_PORT")
    if [[ "${INFX_ROUTER_NAME:-}" == dynamo-router ]]; then args+=(--router-mode kv); fi
    infx_note 'Dynamo: the frontend and its workers find each other through etcd and NATS (ETCD_ENDPOINTS, NATS_SERVER); start them first'
    infx_exec "${args[@]}"
  fi
  infx_is_true "${INFX_DISAGG:-}" ||
    infx_die 'TensorRT-LLM has no router for several aggregated servers: use framework dynamo-trt, or one server'
  if [[ -n "${INFX_ROUTER_NAME:-}" ]]; then
    infx_note "router '$INFX_ROUTER_NAME' has no rendering in recipes/trt.sh: trtllm-serve disaggregated stands in for it"
  fi
  local prefill decode config="$INFX_WORK_DIR/trtllm-disagg-${INFX_PORT}.yaml"
  read -r -a prefill <<<"${INFX_PREFILL_URLS:-}"
  read -r -a decode <<<"${INFX_DECODE_URLS:-}"
  infx_file "$config" "$(
    cat <<EOF
hostname: $INFX_HOST
port: $INFX_PORT
backend: pytorch
context_servers:
  num_instances: ${#prefill[@]}
  urls:
$(url_list "${INFX_PREFILL_URLS:-}")
generation_servers:
  num_instances: ${#decode[@]}
  urls:
$(url_list "${INFX_DECODE_URLS:-}")
EOF
  )"
  infx_exec trtllm-serve disaggregated -c "$config"
}

speculative_yaml() {
  local n=$INFX_NUM_SPEC_TOKENS
  case "$INFX_SPEC_METHOD" in
    mtp) printf 'speculative_config:\n  decoding_type: MTP\n  num_nextn_predict_layers: %s\n' "$n" ;;
    eagle3 | draft_model)
      [[ -n "${INFX_DRAFT_MODEL:-}" ]] || infx_die "speculative method $INFX_SPEC_METHOD needs a draft model (infx recipe render --draft-model, or INFX_DRAFT_MODEL)"
      local type=Eagle3
      if [[ "$INFX_SPEC_METHOD" == draft_model ]]; then type=DraftTarget; fi
      printf 'speculative_config:\n  decoding_type: %s\n  max_draft_len: %s\n  speculative_model: %s\n' \
        "$type" "$n" "$(infx_json_str "$INFX_DRAFT_MODEL")"
      ;;
    *) infx_die "TensorRT-LLM has no speculative method '$INFX_SPEC_METHOD' here (supported: mtp, eagle3, draft_model)" ;;
  esac
}

worker() {
  infx_require INFX_TP INFX_PP INFX_EP INFX_GPUS INFX_NODES INFX_GPU_MEMORY_UTILIZATION
  if ((${INFX_DCP_SIZE:-1} > 1 || ${INFX_PCP_SIZE:-1} > 1)); then
    infx_die "no context parallelism in this recipe (dcp-size ${INFX_DCP_SIZE:-1}, pcp-size ${INFX_PCP_SIZE:-1}): add it to the recipe, or use 1"
  fi
  local dp_attn=false seqs batch spec_tokens=0 tokens
  seqs=$(infx_max_seqs)
  batch=$seqs
  if infx_is_true "${INFX_DP_ATTN:-}"; then
    dp_attn=true
    # Attention data parallelism: the batch limit is per rank.
    batch=$(infx_ceil_div "$seqs" "$INFX_TP")
  fi
  if [[ "${INFX_SPEC_METHOD:-none}" != none ]]; then spec_tokens=$INFX_NUM_SPEC_TOKENS; fi
  if [[ -n "${INFX_ISL:-}" ]]; then
    # One full prompt plus a decode step of the whole batch, rounded up to 64 tokens.
    tokens=$(((((spec_tokens + 1) * batch + INFX_ISL + 64) + 63) / 64 * 64))
  else
    tokens=16384
  fi

  local y=() file="$INFX_WORK_DIR/trtllm-${INFX_ROLE}-${INFX_INDEX:-0}.yaml"
  if [[ "$dynamo" == true ]]; then
    # dynamo.trtllm takes every engine option from this file.
    y+=("tensor_parallel_size: $INFX_TP" "pipeline_parallel_size: $INFX_PP" "moe_expert_parallel_size: $INFX_EP")
    y+=("max_batch_size: $batch" "max_num_tokens: $tokens")
    if [[ -n "${INFX_MAX_MODEL_LEN:-}" ]]; then y+=("max_seq_len: $INFX_MAX_MODEL_LEN"); fi
  fi
  y+=("enable_attention_dp: $dp_attn" 'trust_remote_code: true')
  y+=('cuda_graph_config:' '  enable_padding: true' "  max_batch_size: $batch")
  y+=('kv_cache_config:' "  free_gpu_memory_fraction: $INFX_GPU_MEMORY_UTILIZATION")
  if [[ "${INFX_KV_OFFLOADING:-none}" == dram ]]; then
    [[ "${INFX_KV_OFFLOAD_BACKEND:-}" == native ]] ||
      infx_die "TensorRT-LLM has no KV offload backend '${INFX_KV_OFFLOAD_BACKEND:-}' (supported: native)"
    # host_cache_size is bytes per rank.
    y+=("  host_cache_size: $((${INFX_KV_OFFLOAD_GB:-0} * 1000000000 / INFX_GPUS))")
  fi
  if [[ "${INFX_SPEC_METHOD:-none}" != none ]]; then
    local spec
    spec=$(speculative_yaml)
    y+=("$spec")
    # Golden acceptance: the engine forces this many accepted draft tokens (AL - 1) per step.
    if [[ "${INFX_SPEC_ACCEPTANCE:-real}" == synthetic ]]; then
      infx_env TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS "$INFX_SPEC_ACCEPTED_DRAFT_TOKENS"
    fi
  fi
  if [[ "$INFX_ROLE" == prefill || "$INFX_ROLE" == decode ]]; then
    local backend
    case "${INFX_KV_TRANSFER:-}" in
      nixl) backend=NIXL ;;
      ucx) backend=UCX ;;
      mooncake) backend=MOONCAKE ;;
      *) infx_die "TensorRT-LLM has no KV transfer backend '${INFX_KV_TRANSFER:-}' (supported: nixl, ucx, mooncake)" ;;
    esac
    y+=('cache_transceiver_config:' "  backend: $backend")
    # Context servers finish each request after one step: overlapping steps only delays the hand-off.
    if [[ "$INFX_ROLE" == prefill ]]; then y+=('disable_overlap_scheduler: true'); fi
  fi
  infx_file "$file" "$(printf '%s\n' "${y[@]}")"

  local args=()
  if ((INFX_NODES > 1)); then
    args+=(trtllm-llmapi-launch)
    infx_note "this worker spans $INFX_NODES nodes: TensorRT-LLM runs it under MPI, one task per GPU (srun --mpi=pmix --ntasks-per-node=<GPUs per node>)"
  fi
  if [[ "$dynamo" == true ]]; then
    args+=(python3 -m dynamo.trtllm --model-path "$INFX_MODEL" --served-model-name "$INFX_SERVED_MODEL_NAME")
    args+=(--extra-engine-args "$file")
    if [[ "$INFX_ROLE" == prefill || "$INFX_ROLE" == decode ]]; then args+=(--disaggregation-mode "$INFX_ROLE"); fi
  else
    infx_require INFX_PORT
    args+=(trtllm-serve "$INFX_MODEL" --host "$INFX_HOST" --port "$INFX_PORT" --backend pytorch)
    args+=(--tp_size "$INFX_TP" --pp_size "$INFX_PP" --ep_size "$INFX_EP")
    args+=(--max_batch_size "$batch" --max_num_tokens "$tokens")
    if [[ -n "${INFX_MAX_MODEL_LEN:-}" ]]; then args+=(--max_seq_len "$INFX_MAX_MODEL_LEN"); fi
    args+=(--trust_remote_code --extra_llm_api_options "$file")
  fi
  infx_exec "${args[@]}"
}

case "$INFX_ROLE" in
  router) router ;;
  server | prefill | decode) worker ;;
  *) infx_die "unknown role '$INFX_ROLE' (server, prefill, decode or router)" ;;
esac
