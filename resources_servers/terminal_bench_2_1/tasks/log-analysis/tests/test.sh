#!/bin/bash
# Reward 1 when /app/report.txt names the busiest client and counts the 5xx responses of /app/access.log.
mkdir -p /logs/verifier
top=$(awk '{print $1}' /app/access.log | sort | uniq -c | sort -k1,1nr -k2 | head -1 | awk '{print $2}')
errors=$(awk '$9 ~ /^5/' /app/access.log | wc -l)
if [ -f /app/report.txt ] && grep -qx "top_ip=$top" /app/report.txt && grep -qx "errors_5xx=$errors" /app/report.txt; then
  echo 1 > /logs/verifier/reward.txt; echo PASS
else
  echo 0 > /logs/verifier/reward.txt; echo "FAIL: expected top_ip=$top and errors_5xx=$errors"
fi
