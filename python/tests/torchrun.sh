#!/usr/bin/env bash
# Runs the pytest suite on two ranks started the way torchrun starts them:
# only RANK, WORLD_SIZE, LOCAL_RANK and MASTER_PORT, no symm-run.
#   torchrun.sh PYTHON [pytest arguments...]
set -u
python=$1
shift
# A job id of this run's own, like torchrun's port.
port=$((20000 + $$ % 12000))
pids=()
for rank in 1 0; do
  env -u SYMM_RANK -u SYMM_WORLD_SIZE -u SYMM_RENDEZVOUS RANK=$rank \
    WORLD_SIZE=2 LOCAL_RANK=$rank MASTER_PORT=$port \
    "$python" -m pytest -q -p no:cacheprovider "$@" &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
  wait "$pid" || status=1
done
exit $status
