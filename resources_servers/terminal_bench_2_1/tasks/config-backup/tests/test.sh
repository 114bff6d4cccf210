#!/bin/bash
# Reward 1 when /app/backup.tar.gz holds exactly the *.conf files of /app/etc, with paths relative to it and the same contents.
mkdir -p /logs/verifier
expected=$(cd /app/etc && find . -type f -name '*.conf' | sed 's|^\./||' | sort)
listed=$(tar -tzf /app/backup.tar.gz 2>/dev/null | grep -v '/$' | sed 's|^\./||' | sort)
same=1
if [ -n "$listed" ] && [ "$listed" = "$expected" ]; then
  mkdir -p /tmp/restored && tar -xzf /app/backup.tar.gz -C /tmp/restored
  for file in $expected; do cmp -s "/app/etc/$file" "/tmp/restored/$file" || same=0; done
else
  same=0
fi
if [ "$same" = 1 ]; then
  echo 1 > /logs/verifier/reward.txt; echo PASS
else
  echo 0 > /logs/verifier/reward.txt; printf 'FAIL: expected the files\n%s\ngot\n%s\n' "$expected" "$listed"
fi
