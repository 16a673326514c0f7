#!/usr/bin/env bash
# Start a slow run, kill it with SIGKILL once three cases are scored, show what it left, then resume it.
# Run from the directory that holds examples/ (the repository root); results go to .agentgauge/resume-demo.
set -u
out=.agentgauge/resume-demo
rm -rf "$out"
run=(agentgauge eval examples/resume/slow_agent.py examples/calculator/calculator.evalset.json --parallelism 1
    --output-dir "$out")
"${run[@]}" >/dev/null 2>&1 &
pid=$!
log=""
for _ in $(seq 600); do  # at most a minute
    log=$(ls "$out"/calculator/*.progress.jsonl 2>/dev/null | head -n 1)
    if [ -n "$log" ] && [ "$(wc -l <"$log")" -ge 4 ]; then break; fi  # a header line and three cases
    sleep 0.1
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
echo "killed with SIGKILL; the run left:"
LC_ALL=C ls -A "$out/calculator"
"${run[@]}" --resume "$(basename "$log" .progress.jsonl)"
