#!/bin/bash
sed -i 's/^port=.*/port=9090/; s/^greeting=.*/greeting=hello from ngym/' /app/service/service.conf
bash /app/service/run.sh
