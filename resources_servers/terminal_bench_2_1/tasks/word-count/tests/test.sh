#!/bin/bash
# Reward 1 when /app/counts.txt lists every word of /app/input.txt with its count, most frequent first.
mkdir -p /logs/verifier
expected='the 4
a 2
cat 2
dog 2
on 2
sat 2
and 1
log 1
mat 1'
if [ -f /app/counts.txt ] && [ "$(cat /app/counts.txt)" = "$expected" ]; then echo 1 > /logs/verifier/reward.txt; echo PASS; else echo 0 > /logs/verifier/reward.txt; echo "FAIL: /app/counts.txt differs"; fi
