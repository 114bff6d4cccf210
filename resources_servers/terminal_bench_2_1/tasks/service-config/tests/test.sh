#!/bin/bash
# Reward 1 when the service was started and its health check reports port 9090 and the greeting.
mkdir -p /logs/verifier
if [ "$(bash /app/service/run.sh --check 2>&1)" = "listening on 9090: hello from ngym" ]; then
  echo 1 > /logs/verifier/reward.txt; echo PASS
else
  echo 0 > /logs/verifier/reward.txt; echo "FAIL: $(bash /app/service/run.sh --check 2>&1)"
fi
