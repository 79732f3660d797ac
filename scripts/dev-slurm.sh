#!/usr/bin/env bash
# A real one-node Slurm cluster on this host, for tests and local use (Debian's slurm-wlm + munge, no
# systemd needed). Run as root.
#
#   scripts/dev-slurm.sh install   apt-get install slurm-wlm and munge when sbatch is missing
#   scripts/dev-slurm.sh [start]   start munged, slurmctld and slurmd (idempotent), wait for the node, smoke srun
#   scripts/dev-slurm.sh status    daemons, node and queue
#   scripts/dev-slurm.sh stop      cancel every job, stop the daemons
#
# Environment: INFX_SLURM_TIMEOUT (seconds to wait for the node, default 60); INFX_SLURM_FORCE=1 to replace
# a slurm.conf this script did not write (the old one is kept beside it).
set -euo pipefail

CONF_DIR=/etc/slurm
CONF="$CONF_DIR/slurm.conf"
MARKER='# Written by infx scripts/dev-slurm.sh'
STATE_DIR=/var/spool/slurmctld
SPOOL_DIR=/var/spool/slurmd
LOG_DIR=/var/log/slurm
CTLD_PID=/run/slurmctld.pid
SLURMD_PID=/run/slurmd.pid
MUNGE_KEY=/etc/munge/munge.key
MUNGE_RUN=/run/munge
MUNGE_PID="$MUNGE_RUN/munged.pid"
MUNGE_LOG=/var/log/munge/munged.log
TIMEOUT="${INFX_SLURM_TIMEOUT:-60}"
NODE="$(hostname -s)"

say() { echo "dev-slurm: $*"; }
die() {
  echo "dev-slurm: error: $*" >&2
  exit 1
}
need_root() { [ "$(id -u)" -eq 0 ] || die "must run as root (try: sudo $0 ${1:-start})"; }

# pid from a pid file when that process is alive
alive_pid() {
  local pid
  [ -r "$1" ] || return 1
  pid="$(tr -dc 0-9 <"$1")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

munge_ok() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }
ctld_ok() { timeout 10 scontrol ping 2>/dev/null | grep -q 'is UP'; }
cluster_ok() { ctld_ok && timeout 10 sinfo -h >/dev/null 2>&1 && timeout 30 srun -N1 -t 1 true >/dev/null 2>&1; }
node_state() { timeout 10 sinfo -h -N -n "$NODE" -o %T 2>/dev/null | head -n1; }

show_logs() {
  local f
  for f in "$LOG_DIR/slurmctld.log" "$LOG_DIR/slurmd.log" "$MUNGE_LOG"; do
    [ -f "$f" ] || continue
    echo "----- last lines of $f -----" >&2
    tail -n 40 "$f" >&2
  done
}

cmd_install() {
  if command -v sbatch >/dev/null && command -v slurmctld >/dev/null && command -v munged >/dev/null; then
    say "Slurm already installed ($(sinfo --version 2>/dev/null || echo 'sinfo --version failed'))"
    return 0
  fi
  need_root install
  command -v apt-get >/dev/null || die "sbatch is missing and apt-get is not available: install Slurm (slurmctld, slurmd, client) and munge yourself"
  local log
  log="$(mktemp /tmp/dev-slurm-apt.XXXXXX.log)"
  say "installing slurm-wlm and munge with apt-get (log: $log)"
  export DEBIAN_FRONTEND=noninteractive
  local pkgs=(slurm-wlm munge)
  if ! apt-get install -y -q --no-install-recommends "${pkgs[@]}" >"$log" 2>&1; then
    say "install failed; running apt-get update and trying again"
    if ! { apt-get update -q && apt-get install -y -q --no-install-recommends "${pkgs[@]}"; } >>"$log" 2>&1; then
      tail -n 40 "$log" >&2
      die "apt-get install ${pkgs[*]} failed (full log: $log)"
    fi
  fi
  say "installed: $(sinfo --version)"
}

start_munge() {
  if munge_ok; then
    say "munged already running"
    return 0
  fi
  if [ ! -s "$MUNGE_KEY" ]; then
    say "creating munge key $MUNGE_KEY"
    install -d -o munge -g munge -m 0700 /etc/munge
    if command -v mungekey >/dev/null; then
      mungekey --create --keyfile="$MUNGE_KEY" --force
    else
      dd if=/dev/urandom of="$MUNGE_KEY" bs=1 count=1024 status=none
    fi
  fi
  chown munge:munge "$MUNGE_KEY"
  chmod 0400 "$MUNGE_KEY"
  install -d -o munge -g munge -m 0755 "$MUNGE_RUN"
  install -d -o munge -g munge -m 0700 /var/lib/munge /var/log/munge
  local pid
  if pid="$(alive_pid "$MUNGE_PID")"; then
    say "munged (pid $pid) does not answer; restarting it"
    kill "$pid" 2>/dev/null || true
    sleep 1
  fi
  say "starting munged"
  # Debian's munge runs as the munge user; munged daemonizes itself.
  runuser -u munge -- /usr/sbin/munged --force || die "munged failed to start (see $MUNGE_LOG)"
  local i
  for i in $(seq 1 50); do
    munge_ok && return 0
    sleep 0.1
  done
  show_logs
  die "munged started but munge -n | unmunge fails"
}

write_conf() {
  if [ -f "$CONF" ] && ! grep -qF "$MARKER" "$CONF"; then
    if [ "${INFX_SLURM_FORCE:-}" != 1 ]; then
      die "$CONF exists and was not written by this script; set INFX_SLURM_FORCE=1 to replace it (it is kept as $CONF.infx-backup)"
    fi
    cp -p "$CONF" "$CONF.infx-backup"
    say "kept the old $CONF as $CONF.infx-backup"
  fi
  local cpus mem_mb margin
  cpus="$(nproc)"
  mem_mb=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024))
  margin=$((mem_mb / 10 > 512 ? mem_mb / 10 : 512))
  mem_mb=$((mem_mb - margin > 256 ? mem_mb - margin : 256))
  install -d -m 0755 "$CONF_DIR" "$STATE_DIR" "$SPOOL_DIR" "$LOG_DIR"
  local tmp="$CONF.tmp.$$"
  cat >"$tmp" <<EOF
$MARKER: a one-node development cluster.
# Rewritten on every start; edit the script, not this file.
ClusterName=infx-dev
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
# No cgroups needed: containers and VMs without a delegated cgroup tree work.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
# Finished jobs stay visible to scontrol show job for ten minutes.
MinJobAge=600
KillWait=5
InactiveLimit=0
ReturnToService=2
MailProg=/bin/true
StateSaveLocation=$STATE_DIR
SlurmdSpoolDir=$SPOOL_DIR
SlurmctldPidFile=$CTLD_PID
SlurmdPidFile=$SLURMD_PID
SlurmctldLogFile=$LOG_DIR/slurmctld.log
SlurmdLogFile=$LOG_DIR/slurmd.log
# The node registers with the values below, whatever hwloc sees (containers often disagree with nproc).
SlurmdParameters=config_overrides
NodeName=$NODE NodeAddr=127.0.0.1 NodeHostname=$NODE CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
# FORCE:4 lets up to four jobs share each core, so several small jobs run at once.
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
  chmod 0644 "$tmp"
  mv -f "$tmp" "$CONF"
  say "wrote $CONF (node $NODE, $cpus CPUs, ${mem_mb} MB)"
}

wait_for_node() {
  local deadline=$((SECONDS + TIMEOUT)) state resumed=0
  while :; do
    state="$(node_state || true)"
    case "$state" in
      idle | mixed | allocated | completing) return 0 ;;
      down* | drain* | fail*)
        # A node left down by an earlier run (or registered before slurmctld) comes back on resume.
        if [ "$resumed" -eq 0 ] && [ $((SECONDS + TIMEOUT - deadline)) -ge 3 ]; then
          say "node $NODE is $state; resuming it"
          scontrol update nodename="$NODE" state=resume >/dev/null 2>&1 || true
          resumed=1
        fi
        ;;
    esac
    if [ "$SECONDS" -ge "$deadline" ]; then
      timeout 10 sinfo -N -l >&2 || true
      timeout 10 scontrol show node "$NODE" >&2 || true
      show_logs
      die "node $NODE not ready after ${TIMEOUT}s (state: ${state:-none})"
    fi
    sleep 0.5
  done
}

cmd_start() {
  command -v slurmctld >/dev/null || die "Slurm is not installed: run $0 install"
  if [ -f "$CONF" ] && cluster_ok; then
    say "cluster already up: $(sinfo -h -o '%P %D %T' | head -n1) — nothing to do"
    return 0
  fi
  need_root start
  local pid
  start_munge
  write_conf
  if pid="$(alive_pid "$CTLD_PID")"; then
    say "slurmctld running (pid $pid); reconfiguring it"
    scontrol reconfigure >/dev/null 2>&1 || true
  else
    say "starting slurmctld"
    /usr/sbin/slurmctld || {
      show_logs
      die "slurmctld failed to start"
    }
  fi
  local deadline=$((SECONDS + TIMEOUT))
  until ctld_ok; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      show_logs
      die "slurmctld does not answer scontrol ping after ${TIMEOUT}s"
    fi
    sleep 0.3
  done
  if pid="$(alive_pid "$SLURMD_PID")"; then
    say "slurmd running (pid $pid)"
  else
    say "starting slurmd"
    /usr/sbin/slurmd || {
      show_logs
      die "slurmd failed to start"
    }
  fi
  say "waiting for node $NODE (up to ${TIMEOUT}s)"
  wait_for_node
  say "smoke test: srun -N1 true"
  if ! timeout 60 srun -N1 -t 1 true; then
    show_logs
    die "srun -N1 true failed"
  fi
  say "cluster up in ${SECONDS}s: $(sinfo --version), partition $(sinfo -h -o '%P %D %T' | head -n1)"
}

cmd_stop() {
  need_root stop
  local ids ctld slurmd munged i
  ctld="$(alive_pid "$CTLD_PID" || true)"
  slurmd="$(alive_pid "$SLURMD_PID" || true)"
  munged="$(alive_pid "$MUNGE_PID" || true)"
  if ctld_ok; then
    ids="$(squeue -h -o %i 2>/dev/null | tr '\n' ' ')"
    if [ -n "${ids// /}" ]; then
      say "cancelling jobs: $ids"
      # shellcheck disable=SC2086
      scancel $ids 2>/dev/null || true
      for i in $(seq 1 40); do
        [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
        sleep 0.25
      done
    fi
    say "scontrol shutdown"
    scontrol shutdown >/dev/null 2>&1 || true
  fi
  stop_pid slurmd "$slurmd"
  stop_pid slurmctld "$ctld"
  stop_pid munged "$munged"
  say "stopped"
}

# stop_pid NAME PID: wait for it to exit after a shutdown request, TERM it, then KILL it
stop_pid() {
  local name="$1" pid="$2" i
  [ -n "$pid" ] || return 0
  for i in $(seq 1 40); do
    kill -0 "$pid" 2>/dev/null || break
    if [ "$i" -eq 8 ] || { [ "$name" = munged ] && [ "$i" -eq 1 ]; }; then kill -TERM "$pid" 2>/dev/null || true; fi
    sleep 0.25
  done
  if kill -0 "$pid" 2>/dev/null; then
    say "$name (pid $pid) still running after 10s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  say "stopped $name (pid $pid)"
}

cmd_status() {
  local name file pid rc=0
  for name in munged slurmctld slurmd; do
    case "$name" in
      munged) file="$MUNGE_PID" ;;
      slurmctld) file="$CTLD_PID" ;;
      slurmd) file="$SLURMD_PID" ;;
    esac
    if pid="$(alive_pid "$file")"; then say "$name running (pid $pid)"; else
      say "$name not running"
      rc=1
    fi
  done
  if [ -f "$CONF" ] && ctld_ok; then
    sinfo -N -o '%N %P %T %c %m'
    squeue -o '%i %j %u %T %M %R'
  else
    say "slurmctld does not answer"
    rc=1
  fi
  return "$rc"
}

case "${1:-start}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  -h | --help | help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' ;;
  *) die "unknown command '$1' (install, start, stop, status)" ;;
esac
