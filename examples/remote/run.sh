#!/usr/bin/env bash
# Evaluate the calculator example over the wire: start its A2A server (or, with `agui`, its AG-UI server) on a free
# loopback port, run `agentgauge eval a2a+http://127.0.0.1:PORT examples/calculator/calculator.evalset.json`, stop
# the server and exit with the eval's exit code. Extra arguments go to `agentgauge eval`.
#
#   bash examples/remote/run.sh                  # A2A (a2a-sdk server)
#   bash examples/remote/run.sh agui --json      # AG-UI, JSON summary
#
# Uses the checkout's virtual environment (.venv, `pip install -e '.[dev]'`) unless PYTHON names another
# interpreter that has agentgauge[remote,server] installed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
protocol="a2a"
if [[ $# -gt 0 && ( $1 == a2a || $1 == agui ) ]]; then
    protocol="$1"
    shift
fi
python="${PYTHON:-$root/.venv/bin/python}"
[[ -x $python ]] || python="$(command -v python3)"
agentgauge="$(dirname "$python")/agentgauge"
[[ -x $agentgauge ]] || agentgauge="$(command -v agentgauge)"
port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

if [[ $protocol == a2a ]]; then
    server="$here/calculator_a2a_server.py"
    url="a2a+http://127.0.0.1:$port"
else
    server="$here/calculator_agui_server.py"
    url="agui+http://127.0.0.1:$port/agui"
fi

"$python" "$server" --port "$port" &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true' EXIT

# Wait until the server accepts connections (or has died).
for _ in $(seq 1 200); do
    if "$python" -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2).close()" 2>/dev/null; then
        break
    fi
    if ! kill -0 "$server_pid" 2>/dev/null; then
        echo "run.sh: the $protocol calculator server did not start" >&2
        exit 2
    fi
    sleep 0.1
done

status=0
"$agentgauge" eval "$url" "$root/examples/calculator/calculator.evalset.json" "$@" || status=$?
exit "$status"
