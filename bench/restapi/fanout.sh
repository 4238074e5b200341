#!/usr/bin/env bash
# Fan-out benchmark of the RESTAPI connector (issue 14): FANOUT_CHILDREN
# child reads (default 1000) against a loopback server answering each after
# FANOUT_LATENCY (default 50ms), FANOUT_CONCURRENCY (default 8) at once.
# The ideal is concurrency / latency (160 children/s); the target is ≥ 144.
#
#   bench/restapi/fanout.sh
#   FANOUT_CHILDREN=100 bench/restapi/fanout.sh     # a quick check
#
# Prints the load average beside the figure: the machine is shared.
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "loadavg before: $(cat /proc/loadavg)"
go test -run '^$' -bench '^BenchmarkFanout$' -benchtime "${BENCHTIME:-1x}" -count "${COUNT:-3}" ./connectors/restapi/ |
  grep -E '^Benchmark|children/s'
echo "loadavg after:  $(cat /proc/loadavg)"
