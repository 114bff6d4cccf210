#!/bin/bash
cd /app/etc
find . -type f -name '*.conf' | sed 's|^\./||' | tar -czf /app/backup.tar.gz -T -
