#!/usr/bin/env bash
# Sweeps and panels as Slurm arrays on a real Slurm: installs (only when missing) and starts a single-node Slurm
# (Debian's slurmctld, slurmd, slurm-client, munge; no systemd), runs a sweep
# (configs/paper/lookup-length.toml) and a small compare panel as job arrays with their
# afterok merge jobs, checks the merged summary.csv equals a local run byte for byte (the
# panel's seconds column aside), cancels one task of a third array, resubmits only its jobs
# and checks that run too; then stops the daemons by pid. When Slurm cannot be installed or
# started it prints SKIPPED and why (exit 0); a wrong result exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

skip() {
    echo "SKIPPED .ci/slurm-test.sh (Slurm arrays): $*"
    exit 0
}
fail() {
    echo "FAILED .ci/slurm-test.sh: $*" >&2
    exit 1
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

[ "$(id -u)" = 0 ] || skip "the Slurm daemons need root"
missing=0
for c in sbatch squeue scontrol scancel; do command -v "$c" >/dev/null || missing=1; done
for c in slurmctld slurmd munged; do [ -x "/usr/sbin/$c" ] || missing=1; done
if [ "$missing" = 1 ]; then
    command -v apt-get >/dev/null || skip "Slurm is not installed and there is no apt-get"
    t=$(now)
    echo "installing slurmctld slurmd slurm-client munge ..."
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq slurmctld slurmd slurm-client munge >/dev/null; }; then
        skip "apt-get could not install slurmctld slurmd slurm-client munge"
    fi
    echo "installed in $(since "$t") s"
fi
if pgrep -x slurmctld >/dev/null || pgrep -x slurmd >/dev/null; then
    skip "a slurmctld or slurmd already runs on this machine"
fi

cargo build --release --quiet --bin kcomp
K=$ROOT/target/release/kcomp

# Everything of this test (configuration, state, spool, logs, runs) in one folder.
W=$(mktemp -d /tmp/kcomp-slurm-test.XXXXXX)
export SLURM_CONF=$W/slurm.conf
H=$(hostname -s)
CPUS=$(nproc)
MEM=$(($(awk '/MemTotal/{print $2}' /proc/meminfo) / 1024 - 1024))
mkdir -p "$W/state" "$W/spool" "$W/log"
cat >"$SLURM_CONF" <<CONF
ClusterName=kcompci
SlurmctldHost=$H
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldLogFile=$W/log/slurmctld.log
SlurmdLogFile=$W/log/slurmd.log
MaxArraySize=1001
MinJobAge=600
NodeName=$H CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
PartitionName=debug Nodes=$H Default=YES MaxTime=INFINITE State=UP
CONF

MUNGED_PID=""
PASSED=0
stop() {
    local pids=""
    for f in "$W/slurmd.pid" "$W/slurmctld.pid"; do
        [ -s "$f" ] && pids="$pids $(cat "$f")"
    done
    [ -n "$MUNGED_PID" ] && pids="$pids $MUNGED_PID"
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    for p in $pids; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    done
    if [ "$PASSED" = 1 ]; then rm -rf "$W"; else echo "kept $W (logs in $W/log)"; fi
}
trap stop EXIT

if ! pgrep -x munged >/dev/null; then
    mkdir -p /run/munge
    chown munge:munge /run/munge
    if [ ! -s /etc/munge/munge.key ]; then
        runuser -u munge -- mungekey --create 2>/dev/null || skip "no munge key and mungekey failed"
    fi
    runuser -u munge -- /usr/sbin/munged || skip "munged did not start"
    MUNGED_PID=$(pgrep -n -x munged)
fi
/usr/sbin/slurmctld || skip "slurmctld did not start (see $W/log/slurmctld.log)"
sleep 2
/usr/sbin/slurmd || skip "slurmd did not start (see $W/log/slurmd.log)"
for _ in $(seq 30); do
    sinfo -h -o %t 2>/dev/null | grep -q idle && break
    sleep 1
done
sinfo -h -o %t | grep -q idle || skip "the node never became idle: $(sinfo -h 2>&1 | head -1)"
echo "single-node Slurm up ($H, $CPUS CPUs): $(sinfo -V)"

# Waits (at most $2 s) until job $1 (an array or a job) leaves the queue.
wait_gone() {
    local t
    t=$(now)
    for _ in $(seq "$2"); do
        [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
        sleep 1
    done
    squeue -j "$1" || true
    fail "job $1 still queued after $2 s"
}
state() { scontrol show job "$1" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | sort -u | tr '\n' ' '; }
ids() { sed -n 's/^submitted array job \([0-9]*\) .* merge job \([0-9]*\) .*/\1 \2/p'; }

# 1. The sweep: 70 jobs in 10 tasks, 2 at a time.
SWEEP=(sweep configs/paper/lookup-length.toml)
t=$(now)
"$K" "${SWEEP[@]}" --out "$W/local-sweep" --quiet >/dev/null
echo "local sweep: $(since "$t") s"
t=$(now)
OUT=$("$K" slurm submit --tasks 10 --parallel 2 --time 0:10:00 -- "${SWEEP[@]}" --out "$W/slurm-sweep")
echo "$OUT"
read -r A M < <(ids <<<"$OUT")
[ -n "$M" ] || fail "no job ids from kcomp slurm submit"
wait_gone "$A" 300
wait_gone "$M" 120
echo "sweep array $A (10 tasks, %2) + merge $M: $(since "$t") s, merge $(state "$M")"
[ "$(state "$M")" = "COMPLETED " ] || fail "merge job $M: $(state "$M"); $(cat "$W"/slurm-sweep/slurm/logs/merge_*.log)"
ls "$W"/slurm-sweep/slurm/logs/task_"${A}"_{0..9}.log >/dev/null || fail "a task log is missing"
for f in summary.csv runs.csv summary.json; do
    cmp "$W/local-sweep/$f" "$W/slurm-sweep/$f" || fail "sweep $f differs from the local run"
done
echo "sweep: merged summary.csv, runs.csv, summary.json equal the local run's"

# 2. The panel: 8 datasets, one per task.
PANEL=(compare tests/data/slurm/panel.toml)
t=$(now)
"$K" "${PANEL[@]}" --out "$W/local-panel" --quiet >/dev/null
echo "local panel: $(since "$t") s"
t=$(now)
OUT=$("$K" slurm submit --parallel 2 -- "${PANEL[@]}" --out "$W/slurm-panel")
echo "$OUT"
read -r A M < <(ids <<<"$OUT")
[ -n "$M" ] || fail "no job ids from kcomp slurm submit (panel)"
wait_gone "$A" 300
wait_gone "$M" 120
echo "panel array $A (8 tasks, %2) + merge $M: $(since "$t") s, merge $(state "$M")"
[ "$(state "$M")" = "COMPLETED " ] || fail "panel merge job $M: $(state "$M")"
# seconds_mean is summary.csv's last column.
for d in local-panel slurm-panel; do sed 's/,[^,]*$//' "$W/$d/summary.csv" >"$W/$d.summary"; done
cmp "$W/local-panel.summary" "$W/slurm-panel.summary" || fail "panel summary.csv differs"
cmp "$W/local-panel/agreement.csv" "$W/slurm-panel/agreement.csv" || fail "panel agreement.csv differs"
echo "panel: merged summary.csv (but seconds_mean) and agreement.csv equal the local run's"

# 3. One task cancelled, its jobs resubmitted alone. The scripts hold their jobs at
# submission (#SBATCH --hold), so task 3 is cancelled before it runs whatever the load; its
# merge job can then never start.
t=$(now)
OUT=$("$K" slurm submit --tasks 10 --parallel 2 --sbatch=--hold -- "${SWEEP[@]}" --out "$W/slurm-kill")
read -r A M < <(ids <<<"$OUT")
[ -n "$M" ] || fail "no job ids from kcomp slurm submit (held)"
scancel "${A}_3"
scontrol release "$A"
wait_gone "$A" 300
STATUS=$("$K" slurm status "$W/slurm-kill")
echo "$STATUS"
grep -q "missing jobs: 3,13,23,33,43,53,63" <<<"$STATUS" || fail "status did not list task 3's jobs"
grep -q "tasks to run again: 3$" <<<"$STATUS" || fail "status did not name task 3"
RESUB=$("$K" slurm resubmit "$W/slurm-kill")
echo "$RESUB"
read -r A2 M2 < <(sed -n 's/^submitted array job \([0-9]*\) (tasks 3) and merge job \([0-9]*\) .*/\1 \2/p' <<<"$RESUB")
[ -n "$M2" ] || fail "resubmit did not submit task 3 alone"
scontrol release "$A2" "$M2"
[ "$(state "$M")" = "CANCELLED " ] || fail "the stale merge job $M was not cancelled: $(state "$M")"
wait_gone "$A2" 120
wait_gone "$M2" 120
[ "$(state "$M2")" = "COMPLETED " ] || fail "merge job $M2 after resubmission: $(state "$M2")"
cmp "$W/local-sweep/summary.csv" "$W/slurm-kill/summary.csv" || fail "resubmitted sweep summary.csv differs"
"$K" slurm status "$W/slurm-kill" | grep -q "70 saved, 0 missing" || fail "status after resubmission"
echo "cancel + resubmit (task 3 alone, array $A2, merge $M2): $(since "$t") s; summary.csv equals the local run's"

PASSED=1
echo "PASSED .ci/slurm-test.sh"
