#!/bin/bash
cd /app
top=$(awk '{print $1}' access.log | sort | uniq -c | sort -k1,1nr -k2 | head -1 | awk '{print $2}')
errors=$(awk '$9 ~ /^5/' access.log | wc -l)
printf 'top_ip=%s\nerrors_5xx=%s\n' "$top" "$errors" > report.txt
