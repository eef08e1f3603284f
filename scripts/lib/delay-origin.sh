# Sourced by the benchmarks after docs-origin.sh: starts scripts/lib/delay-proxy.py in front of
# nginx, answering every request $delay seconds late in one write and keeping the most requests
# in flight in $work/peak. Sets $proxy (its pid, for the caller's EXIT trap) and $slow (its
# address), and waits until it answers.
proxy_port=$(free_port)
python3 "$(dirname "${BASH_SOURCE[0]}")/delay-proxy.py" "$proxy_port" "$port" "$delay" "$work/peak" & proxy=$!
slow="http://127.0.0.1:$proxy_port"
for _ in $(seq 50); do curl -sf "$slow/" >/dev/null 2>&1 && break; sleep 0.1; done
