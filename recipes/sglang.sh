#!/usr/bin/env bash
# SGLang: `python3 -m sglang.launch_server` (frameworks sglang, sglang-disagg), `python3 -m dynamo.sglang`
# workers behind the Dynamo frontend (dynamo-sglang), and sglang-router in front of several servers or
# prefill/decode workers. Inputs and the render protocol: recipes/lib.sh.

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
INFX_RECIPE=sglang.sh

infx_require INFX_ROLE INFX_MODEL INFX_SERVED_MODEL_NAME INFX_HOST INFX_CONC INFX_WORK_DIR

dynamo=false
if [[ "${INFX_FRAMEWORK:-}" == dynamo-* ]]; then dynamo=true; fi

# Each prefill worker's KV bootstrap server; the router names it next to the worker's URL.
bootstrap_port() { echo $((8998 + $1)); }

router() {
  infx_require INFX_PORT
  local args url i=0
  if [[ "$dynamo" == true ]]; then
    args=(python3 -m dynamo.frontend --http-port "$INFX_PORT")
    if [[ "${INFX_ROUTER_NAME:-}" == dynamo-router ]]; then args+=(--router-mode kv); fi
    infx_note 'Dynamo: the frontend and its workers find each other through etcd and NATS (ETCD_ENDPOINTS, NATS_SERVER); start them first'
    infx_exec "${args[@]}"
  fi
  if [[ -n "${INFX_ROUTER_NAME:-}" && "$INFX_ROUTER_NAME" != sglang-router ]]; then
    infx_note "router '$INFX_ROUTER_NAME' has no rendering in recipes/sglang.sh: sglang-router stands in for it (edit the recipe to change)"
  fi
  args=(python3 -m sglang_router.launch_router)
  # URLs never contain spaces: the lists split on them.
  if infx_is_true "${INFX_DISAGG:-}"; then
    args+=(--pd-disaggregation)
    for url in ${INFX_PREFILL_URLS:-}; do
      args+=(--prefill "$url" "$(bootstrap_port "$i")")
      i=$((i + 1))
    done
    for url in ${INFX_DECODE_URLS:-}; do args+=(--decode "$url"); done
  else
    args+=(--worker-urls)
    for url in ${INFX_SERVER_URLS:-}; do args+=("$url"); done
  fi
  # Agentic turns of one session must land on the worker that holds their prefix.
  if [[ "${INFX_SCENARIO:-}" == agentic-coding ]]; then args+=(--policy cache_aware); fi
  args+=(--host "$INFX_HOST" --port "$INFX_PORT")
  infx_exec "${args[@]}"
}

speculative_args() {
  local method=$INFX_SPEC_METHOD n=$INFX_NUM_SPEC_TOKENS
  case "$method" in
    mtp) spec=(--speculative-algorithm EAGLE) ;;
    eagle3 | draft_model)
      [[ -n "${INFX_DRAFT_MODEL:-}" ]] || infx_die "speculative method $method needs a draft model (infx recipe render --draft-model, or INFX_DRAFT_MODEL)"
      if [[ "$method" == eagle3 ]]; then spec=(--speculative-algorithm EAGLE3); else spec=(--speculative-algorithm STANDALONE); fi
      spec+=(--speculative-draft-model-path "$INFX_DRAFT_MODEL")
      ;;
    *) infx_die "SGLang has no speculative method '$method' here (supported: mtp, eagle3, draft_model)" ;;
  esac
  spec+=(--speculative-num-steps "$n" --speculative-eagle-topk 1 --speculative-num-draft-tokens $((n + 1)))
  # Golden acceptance: SGLang accepts drafts as if the measured mean acceptance length held.
  if [[ "${INFX_SPEC_ACCEPTANCE:-real}" == synthetic ]]; then
    infx_env SGLANG_SIMULATE_ACC_LEN "$INFX_SPEC_ACCEPTANCE_LENGTH"
    infx_env SGLANG_SIMULATE_ACC_METHOD match-expected
    infx_env SGLANG_SIMULATE_ACC_TOKEN_MODE real-draft-token
  fi
}

worker() {
  infx_require INFX_TP INFX_PP INFX_EP INFX_GPUS INFX_NODES INFX_GPU_MEMORY_UTILIZATION
  local args spec=() dp=1
  if ((${INFX_DCP_SIZE:-1} > 1 || ${INFX_PCP_SIZE:-1} > 1)); then
    infx_die "no context parallelism in this recipe (dcp-size ${INFX_DCP_SIZE:-1}, pcp-size ${INFX_PCP_SIZE:-1}): add the flags of your SGLang version to the recipe, or use 1"
  fi
  if [[ "$dynamo" == true ]]; then
    args=(python3 -m dynamo.sglang --model-path "$INFX_MODEL")
  else
    infx_require INFX_PORT
    args=(python3 -m sglang.launch_server --model-path "$INFX_MODEL" --host "$INFX_HOST" --port "$INFX_PORT")
  fi
  args+=(--served-model-name "$INFX_SERVED_MODEL_NAME" --trust-remote-code --tp "$INFX_TP")
  if ((INFX_PP > 1)); then args+=(--pp-size "$INFX_PP"); fi
  if infx_is_true "${INFX_DP_ATTN:-}"; then
    dp=$INFX_TP
    args+=(--enable-dp-attention --dp-size "$dp")
  fi
  if ((INFX_EP > 1)); then args+=(--ep-size "$INFX_EP"); fi
  if ((INFX_NODES > 1)); then
    # One rendezvous port per worker, so workers sharing a head node never collide.
    local offset=0
    case "$INFX_ROLE" in decode) offset=100 ;; server) offset=200 ;; esac
    args+=(--nnodes "$INFX_NODES" --dist-init-addr "${INFX_CONNECT_HOST:-127.0.0.1}:$((29500 + offset + ${INFX_INDEX:-0}))")
    infx_rank_flag --node-rank
    infx_note "$INFX_ROLE $INFX_INDEX spans $INFX_NODES nodes: its rendezvous (--dist-init-addr) is ${INFX_CONNECT_HOST:-127.0.0.1}, which must be the address of its first node (--connect-host)"
  fi

  args+=(--mem-fraction-static "$INFX_GPU_MEMORY_UTILIZATION")
  if [[ -n "${INFX_MAX_MODEL_LEN:-}" ]]; then args+=(--context-length "$INFX_MAX_MODEL_LEN"); fi
  args+=(--max-running-requests "$(infx_max_seqs)" --cuda-graph-max-bs "$(infx_capture_ceiling)")

  if [[ "${INFX_SPEC_METHOD:-none}" != none ]]; then
    speculative_args
    args+=("${spec[@]}")
  fi

  if [[ "$INFX_ROLE" == prefill || "$INFX_ROLE" == decode ]]; then
    case "${INFX_KV_TRANSFER:-}" in
      nixl | mooncake | mori) ;;
      *) infx_die "SGLang has no KV transfer backend '${INFX_KV_TRANSFER:-}' (supported: nixl, mooncake, mori)" ;;
    esac
    args+=(--disaggregation-mode "$INFX_ROLE" --disaggregation-transfer-backend "$INFX_KV_TRANSFER")
    if [[ "$INFX_ROLE" == prefill ]]; then
      args+=(--disaggregation-bootstrap-port "$(bootstrap_port "${INFX_INDEX:-0}")")
    fi
  fi

  if [[ "${INFX_KV_OFFLOADING:-none}" == dram ]]; then
    # HiCache's host pool is sized per rank.
    local per_rank=$((${INFX_KV_OFFLOAD_GB:-0} / INFX_GPUS))
    case "${INFX_KV_OFFLOAD_BACKEND:-}" in
      hicache) args+=(--enable-hierarchical-cache --hicache-size "$(infx_max "$per_rank" 1)") ;;
      mooncake)
        args+=(--enable-hierarchical-cache --hicache-size "$(infx_max "$per_rank" 1)" --hicache-storage-backend mooncake)
        ;;
      *) infx_die "SGLang has no KV offload backend '${INFX_KV_OFFLOAD_BACKEND:-}' (supported: hicache, mooncake)" ;;
    esac
  fi
  infx_exec "${args[@]}"
}

case "$INFX_ROLE" in
  router) router ;;
  server | prefill | decode) worker ;;
  *) infx_die "unknown role '$INFX_ROLE' (server, prefill, decode or router)" ;;
esac
