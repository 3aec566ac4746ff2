# toml2json.py - embedded in belay; `belay doctor` runs it (python3 -I -B -c) to read a TOML
# agent configuration (Codex's config.toml) with python's own parser, tomllib: stdin the
# TOML, stdout {"ok": DOC} or {"error": "MESSAGE"}.
import json
import sys

try:
    import tomllib
except ImportError:
    print(json.dumps({"error": "python3 has no tomllib (3.11 or later is needed)"}))
    sys.exit(0)
try:
    print(json.dumps({"ok": tomllib.loads(sys.stdin.read())}, default=str))
except Exception as e:
    print(json.dumps({"error": str(e)}))
