#!/bin/bash
cd /app
tail -n +2 sales.csv | awk -F, '{ total[$2] += $3 } END { for (region in total) printf "%s %.2f\n", region, total[region] }' | sort > totals.txt
