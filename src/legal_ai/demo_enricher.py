"""The demo's enricher: a SCRIPTED model, not a real one — a small server on 127.0.0.1 speaking the
OpenAI chat-completions wire format, whose one answer is the headnote, summary (each sentence with
the words of the decision it rests on) and tags of the demo's final of ערר (מרכז) 7001/25. The
demo names it as LEGAL_AI_ENRICHER, so the enrichment runs its real path: the adapter, the
recorded model call, the grounding check, the proposal applied to the decision.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ANSWER = {
    "headnote": "הקלה בקו בניין צדדי שפורסמה כדין תעמוד בתנאי חלונות עמומים; הערר התקבל בחלקו.",
    "summary": [
        {
            "text": "הוועדה קבעה כי ההקלה פורסמה כדין.",
            "quote": "הגענו למסקנה כי ההקלה פורסמה כדין",
        },
        {
            "text": "הערר התקבל בחלקו וההיתר הותנה בחלונות עמומים בקיר הצדדי.",
            "quote": "הערר מתקבל בחלקו: ההיתר יותנה בחלונות עמומים בקיר הצדדי",
        },
    ],
    "tags": ["הקלה", "קו בניין", "פרטיות"],
}


class _Scripted(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        body = json.dumps(
            {
                "id": "chatcmpl-demo-scripted",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": request.get("model", "scripted"),
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {
                            "role": "assistant",
                            "content": json.dumps(ANSWER, ensure_ascii=False),
                        },
                    }
                ],
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
            },
            ensure_ascii=False,
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:  # quiet
        return


@contextmanager
def scripted_enricher() -> Iterator[str]:
    """The scripted model's spec for LEGAL_AI_ENRICHER while the server runs."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Scripted)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"openai:scripted-demo-enricher@http://127.0.0.1:{server.server_port}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
