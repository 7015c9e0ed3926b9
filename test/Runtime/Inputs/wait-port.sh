#!/usr/bin/env bash
# Waits (up to 30 s) until something listens on 127.0.0.1:PORT. Connecting
# opens and closes a connection, which a rank 0 drops as one that never
# said who it is.
for _ in $(seq 150); do
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && exit 0
  sleep 0.2
done
echo "nothing listens on port $1" >&2
exit 1
