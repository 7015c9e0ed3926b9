#!/bin/sh
# two-jobs.sh EXE PORT OUT: two torchrun-style jobs of two ranks with the same
# MASTER_PORT, each started by a shell of its own, as two scripts would.
# Job A's rank 0 starts first; while it waits for its rank 1, job B's rank 1
# and then job B's rank 0 start; job A's rank 1 comes last. Each rank's
# output, then "status N", goes to OUT.<job><rank>.
exe=$1 port=$2 out=$3
if [ "$4" = job ]; then
  # JOB FIRST SECOND PAUSE TIMEOUT: this shell starts both ranks of JOB.
  job=$5 first=$6 second=$7 pause=$8 timeout=$9
  start() {
    exec env -u SYMM_RANK -u SYMM_WORLD_SIZE -u SYMM_RENDEZVOUS -u SYMM_JOB_ID \
      -u TORCHELASTIC_RUN_ID RANK=$1 WORLD_SIZE=2 LOCAL_RANK=$1 \
      MASTER_PORT="$port" SYMM_TIMEOUT="$timeout" "$exe" > "$out.$job$1" 2>&1
  }
  start "$first" &
  p1=$!
  sleep "$pause"
  start "$second" &
  p2=$!
  wait $p1
  echo "status $?" >> "$out.$job$first"
  wait $p2
  echo "status $?" >> "$out.$job$second"
  exit 0
fi
sh "$0" "$exe" "$port" "$out" job A 0 1 1.5 20 &
sleep 0.5
sh "$0" "$exe" "$port" "$out" job B 1 0 0.5 3 &
wait
