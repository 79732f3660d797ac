# shellcheck shell=bash
# Shared helpers of the engine recipes (recipes/<engine>.sh). A recipe reads INFX_* variables, records the
# environment it sets and the files it writes with infx_env / infx_file, and ends with
# `infx_exec <argv...>`. Run directly, that starts the server (exec). With INFX_RENDER=1 it prints
# instead what it would do, in the line protocol below, which `infx recipe render` and the sweep parse.
#
# Inputs (set by infx; every one is a plain string, empty when it does not apply):
#   INFX_FRAMEWORK   the row's framework (vllm, dynamo-sglang, ...)   INFX_ROLE  server|prefill|decode|router
#   INFX_INDEX       index of this process within its role            INFX_IMAGE the row's image
#   INFX_MODEL       checkpoint to load                               INFX_SERVED_MODEL_NAME  name requests carry
#   INFX_HOST / INFX_PORT   where to listen (INFX_PORT empty: does not serve HTTP)
#   INFX_CONNECT_HOST       how other processes reach this machine
#   INFX_WORK_DIR    where to write files                             INFX_PRECISION  fp4|fp8|...
#   INFX_GPUS / INFX_NODES  GPUs and nodes of this process            INFX_SCENARIO  fixed-seq-len|agentic-coding
#   INFX_TP INFX_PP INFX_EP INFX_DCP_SIZE INFX_PCP_SIZE  parallelism;  INFX_DP_ATTN  true|false
#   INFX_CONC        concurrency the client drives                    INFX_ISL / INFX_OSL  (fixed-seq-len)
#   INFX_MAX_MODEL_LEN   empty: the model's native context            INFX_GPU_MEMORY_UTILIZATION
#   INFX_SPEC_DECODING   the row's value: none|mtp|draft_model
#   INFX_SPEC_METHOD     engine method: none|mtp|eagle3|dspark|draft_model;  INFX_DRAFT_MODEL  draft checkpoint
#   INFX_NUM_SPEC_TOKENS draft tokens per step;  INFX_SPEC_ACCEPTANCE  real|synthetic
#   INFX_SPEC_ACCEPTANCE_LENGTH     pinned mean acceptance length AL (synthetic only)
#   INFX_SPEC_ACCEPTED_DRAFT_TOKENS AL - 1 (synthetic only)
#   INFX_KV_OFFLOADING none|dram;  INFX_KV_OFFLOAD_BACKEND  native|vllm-simple|lmcache|hicache|mooncake|...
#   INFX_KV_OFFLOAD_GB  this process's share of the row's CPU DRAM budget, GB
#   INFX_DISAGG true|false;  INFX_KV_TRANSFER  nixl|mooncake|mori|ucx (disaggregated rows)
#   INFX_ROUTER_NAME / INFX_ROUTER_VERSION   the row's router, if any
#   INFX_PREFILL_URLS / INFX_DECODE_URLS / INFX_SERVER_URLS   space-separated worker URLs (router role)
#   INFX_EVAL_ONLY true|false
#
# Protocol (INFX_RENDER=1), one record per line on stdout; a value is the rest of the line after the first
# space, verbatim (spaces, quotes and JSON included); values never contain a newline:
#   infx-recipe-protocol 1      first line
#   env NAME VALUE              a variable the engine process gets
#   file PATH                   a file to write before the start: `data TEXT` lines (one per content
#   data TEXT                   line, newline appended), closed by `end`
#   end
#   arg VALUE                   one argv element, in order (the first is the program)
#   ready PATH                  GET path that answers 200 once the server serves (default /health)
#   rankflag FLAG               flag that takes the node rank when the process spans several nodes
#   note TEXT                   something the user should know (printed as a warning)
#   infx-recipe-end             last line

set -euo pipefail

# Bash 3.2 (macOS) treats "${empty[@]}" as unbound under set -u: arrays that may be empty are expanded as
# ${a[@]+"${a[@]}"} throughout the recipes.

INFX__ENV_NAMES=()
INFX__ENV_VALUES=()
INFX__FILE_PATHS=()
INFX__FILE_CONTENTS=()
INFX__NOTES=()
INFX__READY=/health
INFX__RANK_FLAG=

infx_die() {
  printf '%s: %s\n' "${INFX_RECIPE:-$(basename "$0")}" "$*" >&2
  exit 1
}

# Values travel one per line, so a newline would corrupt the protocol.
infx__check_line() {
  case "$1" in
    *$'\n'*) infx_die "a value contains a newline, which the recipe protocol cannot carry: ${1%%$'\n'*}..." ;;
  esac
}

infx_require() {
  local name
  for name in "$@"; do
    [[ -n "${!name:-}" ]] || infx_die "$name is not set (infx sets it; when running the recipe by hand, export it)"
  done
}

infx_is_true() { [[ "${1:-}" == true || "${1:-}" == 1 ]]; }

infx_max() { if (($1 > $2)); then echo "$1"; else echo "$2"; fi; }

infx_ceil_div() { echo $((($1 + $2 - 1) / $2)); }

# A JSON string literal of $1 (for model paths inside engine JSON options).
infx_json_str() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\t'/\\t}
  printf '"%s"' "$s"
}

infx_env() {
  [[ "$1" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || infx_die "invalid environment variable name: $1"
  infx__check_line "$2"
  INFX__ENV_NAMES+=("$1")
  INFX__ENV_VALUES+=("$2")
  if ! infx_is_true "${INFX_RENDER:-}"; then export "$1=$2"; fi
}

# infx_file PATH CONTENT: CONTENT without its final newline (one is added), as $(cat <<EOF ...) gives it.
infx_file() {
  infx__check_line "$1"
  INFX__FILE_PATHS+=("$1")
  INFX__FILE_CONTENTS+=("$2")
  if ! infx_is_true "${INFX_RENDER:-}"; then
    mkdir -p "$(dirname "$1")"
    printf '%s\n' "$2" >"$1"
  fi
}

infx_note() {
  infx__check_line "$1"
  INFX__NOTES+=("$1")
  if ! infx_is_true "${INFX_RENDER:-}"; then printf 'note: %s\n' "$1" >&2; fi
}

infx_ready() { INFX__READY=$1; }

infx_rank_flag() { INFX__RANK_FLAG=$1; }

infx__render() {
  local i line
  printf 'infx-recipe-protocol 1\n'
  for ((i = 0; i < ${#INFX__ENV_NAMES[@]}; i++)); do
    printf 'env %s %s\n' "${INFX__ENV_NAMES[$i]}" "${INFX__ENV_VALUES[$i]}"
  done
  for ((i = 0; i < ${#INFX__FILE_PATHS[@]}; i++)); do
    printf 'file %s\n' "${INFX__FILE_PATHS[$i]}"
    while IFS= read -r line || [[ -n "$line" ]]; do
      printf 'data %s\n' "$line"
    done <<<"${INFX__FILE_CONTENTS[$i]}"
    printf 'end\n'
  done
  for line in "$@"; do
    infx__check_line "$line"
    printf 'arg %s\n' "$line"
  done
  printf 'ready %s\n' "$INFX__READY"
  if [[ -n "$INFX__RANK_FLAG" ]]; then printf 'rankflag %s\n' "$INFX__RANK_FLAG"; fi
  for line in ${INFX__NOTES[@]+"${INFX__NOTES[@]}"}; do printf 'note %s\n' "$line"; done
  printf 'infx-recipe-end\n'
}

infx_exec() {
  (($# > 0)) || infx_die 'infx_exec needs a command'
  if infx_is_true "${INFX_RENDER:-}"; then
    infx__render "$@"
    exit 0
  fi
  exec "$@"
}

# Common derived values: requests in flight per engine, and the CUDA-graph capture ceiling.
# Agentic sessions fan out to subagents, so they get twice the concurrency as headroom.
infx_max_seqs() {
  local seqs=$INFX_CONC
  if [[ "${INFX_SCENARIO:-}" == agentic-coding ]]; then seqs=$((2 * INFX_CONC)); fi
  infx_max "$seqs" 1
}

infx_capture_ceiling() { infx_max $((2 * INFX_CONC)) 128; }
