#!/usr/bin/env bash
# vLLM: `vllm serve` (frameworks vllm, llmd-vllm), `python3 -m dynamo.vllm` workers behind the Dynamo
# frontend (dynamo-vllm), and vllm-router in front of several servers or a prefill/decode pair.
# Inputs and the render protocol: recipes/lib.sh.

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
INFX_RECIPE=vllm.sh

infx_require INFX_ROLE INFX_MODEL INFX_SERVED_MODEL_NAME INFX_HOST INFX_CONC INFX_WORK_DIR

dynamo=false
if [[ "${INFX_FRAMEWORK:-}" == dynamo-* ]]; then dynamo=true; fi

dynamo_frontend() {
  infx_require INFX_PORT
  local args=(python3 -m dynamo.frontend --http-port "$INFX_PORT")
  if [[ "${INFX_ROUTER_NAME:-}" == dynamo-router ]]; then args+=(--router-mode kv); fi
  infx_note 'Dynamo: the frontend and its workers find each other through etcd and NATS (ETCD_ENDPOINTS, NATS_SERVER); start them first'
  infx_exec "${args[@]}"
}

router() {
  if [[ "$dynamo" == true ]]; then dynamo_frontend; fi
  infx_require INFX_PORT
  if [[ -n "${INFX_ROUTER_NAME:-}" && "$INFX_ROUTER_NAME" != vllm-router ]]; then
    infx_note "router '$INFX_ROUTER_NAME' has no rendering in recipes/vllm.sh: vllm-router stands in for it (edit the recipe to change)"
  fi
  local args=(vllm-router) url
  # URLs never contain spaces: the lists split on them.
  if infx_is_true "${INFX_DISAGG:-}"; then
    args+=(--vllm-pd-disaggregation)
    for url in ${INFX_PREFILL_URLS:-}; do args+=(--prefill "$url"); done
    for url in ${INFX_DECODE_URLS:-}; do args+=(--decode "$url"); done
  else
    args+=(--worker-urls)
    for url in ${INFX_SERVER_URLS:-}; do args+=("$url"); done
    # One server with data-parallel attention is several engines behind one port.
    if infx_is_true "${INFX_DP_ATTN:-}"; then args+=(--intra-node-data-parallel-size "$INFX_TP"); fi
  fi
  # Agentic turns of one session must land on the engine that holds their prefix.
  if [[ "${INFX_SCENARIO:-}" == agentic-coding ]]; then args+=(--policy consistent_hash); fi
  args+=(--host "$INFX_HOST" --port "$INFX_PORT")
  infx_exec "${args[@]}"
}

# The KV connector between prefill and decode (disaggregated rows).
transfer_connector() {
  local role=kv_both
  case "${INFX_KV_TRANSFER:-}" in
    nixl) echo "{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"$role\"}" ;;
    ucx) echo "{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"$role\",\"kv_connector_extra_config\":{\"backends\":[\"UCX\"]}}" ;;
    mooncake)
      if [[ "$INFX_ROLE" == prefill ]]; then role=kv_producer; else role=kv_consumer; fi
      echo "{\"kv_connector\":\"MooncakeConnector\",\"kv_role\":\"$role\"}"
      ;;
    mori) echo "{\"kv_connector\":\"MoRIIOConnector\",\"kv_role\":\"$role\"}" ;;
    *) infx_die "vLLM has no KV transfer connector for '${INFX_KV_TRANSFER:-}' (supported: nixl, ucx, mooncake, mori)" ;;
  esac
}

# Sets offload_json to the CPU KV offload connector (kv-offloading dram), or leaves it empty when the
# --kv-offloading-* flags do it instead. A global, not stdout: it records env and files as it goes.
offload_json=
offload_connector() {
  local ranks=$1 gb=${INFX_KV_OFFLOAD_GB:-0} combined=$2
  case "${INFX_KV_OFFLOAD_BACKEND:-}" in
    native)
      if [[ "$combined" == true ]]; then
        offload_json="{\"kv_connector\":\"OffloadingConnector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"cpu_bytes_to_use\":$((gb * 1000000000 / ranks))}}"
      fi
      ;;
    lmcache)
      if [[ "$combined" == true ]]; then offload_json='{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'; fi
      ;;
    vllm-simple)
      # Identical prefixes must hash to the same block keys on every data-parallel rank.
      infx_env PYTHONHASHSEED 42
      offload_json="{\"kv_connector\":\"SimpleCPUOffloadConnector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"cpu_bytes_to_use\":$((gb * 1000000000 / ranks))}}"
      ;;
    mooncake)
      local config="$INFX_WORK_DIR/mooncake-${INFX_ROLE}-${INFX_INDEX:-0}.json"
      infx_file "$config" "$(
        cat <<EOF
{
  "mode": "embedded",
  "metadata_server": "P2PHANDSHAKE",
  "master_server_address": "${INFX_CONNECT_HOST:-127.0.0.1}:50051",
  "global_segment_size": "$((gb / ranks))GB",
  "local_buffer_size": "4GB",
  "protocol": "rdma",
  "device_name": ""
}
EOF
      )"
      infx_env MOONCAKE_CONFIG_PATH "$config"
      infx_env PYTHONHASHSEED 0
      infx_note 'mooncake KV offload: start mooncake_master (port 50051) before the engine'
      offload_json='{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both","kv_connector_extra_config":{"load_async":true}}'
      ;;
    *) infx_die "vLLM has no KV offload backend '${INFX_KV_OFFLOAD_BACKEND:-}' (supported: native, lmcache, vllm-simple, mooncake)" ;;
  esac
}

spec_config() {
  local method=$INFX_SPEC_METHOD json
  json="{\"method\": \"$method\""
  case "$method" in
    mtp) ;;
    eagle3 | dspark | draft_model)
      [[ -n "${INFX_DRAFT_MODEL:-}" ]] || infx_die "speculative method $method needs a draft model (infx recipe render --draft-model, or INFX_DRAFT_MODEL)"
      json+=", \"model\": $(infx_json_str "$INFX_DRAFT_MODEL")"
      ;;
    *) infx_die "vLLM has no speculative method '$method' (supported: mtp, eagle3, dspark, draft_model)" ;;
  esac
  json+=", \"num_speculative_tokens\": $INFX_NUM_SPEC_TOKENS"
  if [[ "${INFX_SPEC_ACCEPTANCE:-real}" == synthetic ]]; then
    json+=", \"rejection_sample_method\": \"synthetic\", \"synthetic_acceptance_length\": $INFX_SPEC_ACCEPTANCE_LENGTH"
  fi
  echo "$json}"
}

worker() {
  infx_require INFX_TP INFX_PP INFX_EP INFX_GPUS INFX_NODES INFX_GPU_MEMORY_UTILIZATION
  local args dp=1
  if [[ "$dynamo" == true ]]; then
    args=(python3 -m dynamo.vllm --model "$INFX_MODEL")
  else
    infx_require INFX_PORT
    args=(vllm serve "$INFX_MODEL" --host "$INFX_HOST" --port "$INFX_PORT")
  fi
  args+=(--served-model-name "$INFX_SERVED_MODEL_NAME" --trust-remote-code)

  if infx_is_true "${INFX_DP_ATTN:-}"; then
    dp=$INFX_TP
    args+=(--tensor-parallel-size 1 --data-parallel-size "$dp")
  else
    args+=(--tensor-parallel-size "$INFX_TP")
  fi
  if ((INFX_PP > 1)); then args+=(--pipeline-parallel-size "$INFX_PP"); fi
  if ((INFX_EP > 1)); then args+=(--enable-expert-parallel); fi
  if ((${INFX_DCP_SIZE:-1} > 1)); then args+=(--decode-context-parallel-size "$INFX_DCP_SIZE"); fi
  if ((${INFX_PCP_SIZE:-1} > 1)); then args+=(--prefill-context-parallel-size "$INFX_PCP_SIZE"); fi
  if ((INFX_NODES > 1)); then
    args+=(--nnodes "$INFX_NODES" --master-addr "${INFX_CONNECT_HOST:-127.0.0.1}")
    infx_rank_flag --node-rank
    infx_note "$INFX_ROLE $INFX_INDEX spans $INFX_NODES nodes: its rendezvous (--master-addr) is ${INFX_CONNECT_HOST:-127.0.0.1}, which must be the address of its first node (--connect-host)"
  fi

  args+=(--gpu-memory-utilization "$INFX_GPU_MEMORY_UTILIZATION")
  if [[ -n "${INFX_MAX_MODEL_LEN:-}" ]]; then args+=(--max-model-len "$INFX_MAX_MODEL_LEN"); fi
  # max-num-seqs is per engine, and data-parallel attention runs one engine per rank.
  args+=(--max-num-seqs "$(infx_ceil_div "$(infx_max_seqs)" "$dp")")
  args+=(--max-cudagraph-capture-size "$(infx_capture_ceiling)")

  if [[ "${INFX_SPEC_METHOD:-none}" != none ]]; then args+=(--speculative-config "$(spec_config)"); fi

  local connectors=() transfer combined=false
  if [[ "$INFX_ROLE" == prefill || "$INFX_ROLE" == decode ]]; then
    transfer=$(transfer_connector)
    connectors+=("$transfer")
    combined=true
    if [[ "$dynamo" == true ]]; then args+=(--disaggregation-mode "$INFX_ROLE"); fi
  fi
  if [[ "${INFX_KV_OFFLOADING:-none}" == dram ]]; then
    offload_connector "$INFX_GPUS" "$combined"
    if [[ -n "$offload_json" ]]; then
      connectors+=("$offload_json")
    else
      args+=(--kv-offloading-backend "$INFX_KV_OFFLOAD_BACKEND" --kv-offloading-size "${INFX_KV_OFFLOAD_GB:-0}")
    fi
  fi
  if ((${#connectors[@]} == 1)); then
    args+=(--kv-transfer-config "${connectors[0]}")
  elif ((${#connectors[@]} > 1)); then
    args+=(--kv-transfer-config "{\"kv_connector\":\"MultiConnector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"connectors\":[${connectors[0]},${connectors[1]}]}}")
  fi
  infx_exec "${args[@]}"
}

case "$INFX_ROLE" in
  router) router ;;
  server | prefill | decode) worker ;;
  *) infx_die "unknown role '$INFX_ROLE' (server, prefill, decode or router)" ;;
esac
