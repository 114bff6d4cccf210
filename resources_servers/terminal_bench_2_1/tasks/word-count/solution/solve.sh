#!/bin/bash
cd /app && tr -s ' \n' '\n\n' < input.txt | grep -v '^$' | sort | uniq -c | awk '{print $2, $1}' | sort -k2,2nr -k1,1 > counts.txt
