#!/bin/sh
# two-jobs.sh EXE PORT OUT: two torchrun-style jobs of two ranks with the same
# MASTER_PORT, each started by a shell of its own, as two scripts would.
# Job A's rank 0 starts first; once it listens, job B's rank 1 and then job
# B's rank 0 start; job A's rank 1 comes only when both have ended. Each
# rank's output, then "status N", goes to OUT.<job><rank>.
exe=$1 port=$2 out=$3
if [ "$4" = job ]; then
  # JOB FIRST SECOND TIMEOUT GATE: this shell starts both ranks of JOB, the
  # second once the file GATE exists.
  job=$5 first=$6 second=$7 timeout=$8 gate=$9
  start() {
    exec env -u SYMM_RANK -u SYMM_WORLD_SIZE -u SYMM_RENDEZVOUS -u SYMM_JOB_ID \
      -u TORCHELASTIC_RUN_ID RANK=$1 WORLD_SIZE=2 LOCAL_RANK=$1 \
      MASTER_PORT="$port" SYMM_TIMEOUT="$timeout" "$exe" > "$out.$job$1" 2>&1
  }
  start "$first" &
  p1=$!
  while [ ! -e "$gate" ]; do sleep 0.1; done
  start "$second" &
  p2=$!
  wait $p1
  echo "status $?" >> "$out.$job$first"
  wait $p2
  echo "status $?" >> "$out.$job$second"
  exit 0
fi
rm -f "$out.gate.A" "$out.gate.B"
socket=/tmp/symm-$(id -u)-MASTER_PORT-$port/rank0.sock
sh "$0" "$exe" "$port" "$out" job A 0 1 20 "$out.gate.A" &
a=$!
# Job B starts once job A's rank 0 listens (for at most 20 s).
for _ in $(seq 200); do
  [ -S "$socket" ] && break
  sleep 0.1
done
sh "$0" "$exe" "$port" "$out" job B 1 0 3 "$out.gate.B" &
b=$!
sleep 0.5
touch "$out.gate.B"
wait $b
touch "$out.gate.A"
wait $a
rm -f "$out.gate.A" "$out.gate.B"
