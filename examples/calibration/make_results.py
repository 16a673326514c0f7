"""Make the two results of this example: the recorded answers of capitals.evalset.json scored by
``llm_final_response`` with two judge models, without an API key.

The two "judge models" are rules served as an OpenAI-compatible chat-completions endpoint on 127.0.0.1 (started and
stopped here): ``judge-lenient`` accepts an answer that mentions the expected capital anywhere, ``judge-strict`` only
one that starts with it. Each run goes through ``agentgauge eval`` like any judge run, so the result files are real
agentgauge results. Run from the repository root: ``python examples/calibration/make_results.py``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
EVALSET = HERE / "capitals.evalset.json"
RESULTS = HERE / "results"


def _verdict(model: str, answer: str, expected: str) -> bool:
    answer, expected = answer.strip().lower(), expected.strip().lower()
    if model == "judge-lenient":
        return expected in answer
    return answer.startswith(expected)


def _section(prompt: str, title: str, following: str) -> str:
    found = re.search(rf"{title}:\n(.*?)\n\n{following}:", prompt, re.S)
    if found is None:
        raise ValueError(f"no {title!r} in the judge prompt")
    return found.group(1)


class _Judge(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = "\n".join(m["content"] for m in body["messages"])
        valid = _verdict(
            body["model"],
            _section(prompt, "Agent response", "Reference response"),
            _section(prompt, "Reference response", "Reply with exactly two lines and nothing else"),
        )
        text = f"reasoning: rule of {body['model']}\nis_the_agent_response_valid: {'valid' if valid else 'invalid'}"
        reply = {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Judge)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        for model in ("judge-lenient", "judge-strict"):
            metric = {
                "metricName": "llm_final_response",
                "threshold": 1,
                "criterion": {
                    "llmJudge": {
                        "judgeModel": {
                            "providerName": "openai",
                            "modelName": model,
                            "baseURL": base_url,
                            "apiKey": "none",
                        }
                    }
                },
            }
            with tempfile.TemporaryDirectory() as tmp:
                metrics = Path(tmp) / f"{model}.metrics.json"
                metrics.write_text(json.dumps([metric]))
                cli = [sys.executable, "-c", "from agentgauge.cli import main; main()"]
                command = [
                    *cli,
                    "eval",
                    str(EVALSET),
                    "--metrics",
                    str(metrics),
                    "--output-dir",
                    str(RESULTS),
                    "--no-cache",
                ]
                subprocess.run(command, check=False)
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
