#!/bin/bash
# Reward 1 when /app/totals.txt holds each region's total of /app/sales.csv, regions in alphabetical order.
mkdir -p /logs/verifier
expected=$(tail -n +2 /app/sales.csv | awk -F, '{ total[$2] += $3 } END { for (region in total) printf "%s %.2f\n", region, total[region] }' | sort)
if [ -f /app/totals.txt ] && [ "$(cat /app/totals.txt)" = "$expected" ]; then
  echo 1 > /logs/verifier/reward.txt; echo PASS
else
  echo 0 > /logs/verifier/reward.txt; printf 'FAIL: expected\n%s\n' "$expected"
fi
