#!/usr/bin/env python3
"""tests/fuzz/make-seeds.py BUILD_DIR - regenerates the committed seed corpora of the fuzz
harnesses (tests/fuzz/seeds/NAME/) from the project's own fixtures: the command examples of
tests/unit/test_gate_examples.c, the built-in keymap and themes, the golden trace, and one
real demo session recorded with BUILD_DIR/belay (its trace, its frames, a case banked from
it and exported: the case file, its header's manifests).

Each harness's first byte(s) pick a mode (see the harness's header comment); seeds cover
every mode. Seeds stay small (each well under 64 KiB). Run it when a format changes, then
commit the result; the fuzz ctest replays every seed and fails when one crashes."""
import base64, json, os, re, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
build = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(ROOT, "build")
belay = os.path.join(build, "belay")
seeds = os.path.join(HERE, "seeds")

def put(name, tag, data):
    d = os.path.join(seeds, name)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, tag), "wb") as f:
        f.write(data)

def c_strings(path, pattern):
    """The first C string literal of every line matching pattern, decoded."""
    out = []
    for line in open(os.path.join(ROOT, path), encoding="utf-8"):
        m = re.match(pattern, line)
        if m:
            out.append(bytes(m.group(1), "utf-8").decode("unicode_escape").encode("latin-1", "replace"))
    return out

DEMO = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
     "capabilities": {}, "clientInfo": {"name": "seed", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "read_file",
     "arguments": {"path": "tests/test_a.py"}}},
    {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "write_file",
     "arguments": {"path": "tests/test_a.py", "content": "def test_a():\n    assert True\n"}}},
    {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "run_tests", "arguments": {}}},
]

def record(tmp):
    """One demo session through belay proxy; returns (trace path, state dir)."""
    ws = os.path.join(tmp, "ws")
    os.makedirs(os.path.join(ws, "tests"))
    with open(os.path.join(ws, "tests", "test_a.py"), "w") as f:
        f.write("def test_a():\n    assert 1 + 1 == 2\n")
    state, traces = os.path.join(tmp, "state"), os.path.join(tmp, "traces")
    # The minimal environment agents start servers with (the trace records its names).
    env = {k: os.environ[k] for k in ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER") if k in os.environ}
    env.update(BELAY_SANDBOX_TMP_BASE=tmp, ASAN_OPTIONS="detect_leaks=0")
    p = subprocess.Popen([belay, "proxy", "--scope", ws, "--state", state, "--trace-dir", traces, "--",
                          os.path.join(build, "belay-demo-server"), "all", ws],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=ws)
    for msg in DEMO:
        p.stdin.write((json.dumps(msg) + "\n").encode())
        p.stdin.flush()
        if "id" in msg:
            p.stdout.readline()
    p.stdin.close()
    p.wait(timeout=60)
    trace = os.path.join(traces, sorted(os.listdir(traces))[-1])
    return trace, state, env

def main():
    if os.path.isdir(seeds):
        shutil.rmtree(seeds)
    tmp = tempfile.mkdtemp(prefix="belay-seeds-")
    try:
        trace, state, env = record(tmp)
        tbytes = open(trace, "rb").read()
        recs = [json.loads(l) for l in tbytes.splitlines()]
        frames = [(r["dir"], base64.b64decode(r["raw"])) for r in recs if r["kind"] == "frame"]
        run = subprocess.run([belay, "corpus", "add", trace, "--turn", "1", "--state", state],
                             env=env, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
        case = os.path.join(tmp, "case.belay")
        subprocess.run([belay, "corpus", "export", run, case, "--state", state], env=env, check=True,
                       capture_output=True)
        cbytes = open(case, "rb").read()
    except Exception:
        shutil.rmtree(tmp)
        raise
    shutil.rmtree(tmp)

    # framer: cap byte, chunking byte, stream.
    stream = b"".join(f + b"\n" for _, f in frames)
    put("framer", "demo-one-chunk", b"\x00\x00" + stream)
    put("framer", "demo-random-chunks", b"\x00\x07" + stream)
    put("framer", "demo-cap-5", b"\x05\x33" + stream[:2000])
    put("framer", "crlf-blank-tail", b"\x09\x51" + b"\r\n\n{\"a\":1}\r\n\r\r\n\n\nabcdefghijklmnop\nno newline")

    # sse_parse: limit byte, chunking byte, stream (the SDK servers' shapes: a priming event,
    # message events with ids, the old transport's endpoint event, CRLF and CR endings, a BOM).
    sse = (b"id: p1\ndata: \n\nevent: message\nid: e1\ndata: " + stream.split(b"\n")[0] + b"\n\n"
           b": keep-alive\n\nevent: endpoint\ndata: /message?sessionId=abc\n\nretry: 3000\n\n")
    put("sse_parse", "sdk-stream", b"\x00\x00" + sse)
    put("sse_parse", "sdk-stream-cut", b"\x00\x05" + sse)
    put("sse_parse", "crlf-cr-bom", b"\x00\x0b" + b"\xef\xbb\xbfdata: a\r\ndata: b\r\n\r\ndata: c\r\rid: x\x00y\ndata\n\n")
    put("sse_parse", "limit-20", b"\x14\x03" + b"data: 12345\n\ndata: 1234567890123456789\n\n")

    # trace_reader: repair flag, trace file.
    put("trace_reader", "demo-trace", b"\x00" + tbytes)
    put("trace_reader", "demo-trace-repair", b"\x01" + tbytes)
    golden = open(os.path.join(ROOT, "tests", "golden", "trace_writer.txt"), "rb").read()
    put("trace_reader", "golden-head", b"\x01" + b"\n".join(golden.splitlines()[:12]) + b"\n")

    # jcs: JSON texts.
    for i, (_, f) in enumerate(frames):
        put("jcs", "frame-%02d" % i, f)
    for i, t in enumerate([b'{"b":[1,2.50,-0,1e21,1E-7],"a":"\\u00e9\\ud83d\\ude00","\\r":null}',
                           b' [ true , false , {"z":{}, "y":[]} ] ', b'"\\u001f\\/\\"\\\\"',
                           b'123456789012345678901234567890', b'{"\xe2\x82\xac":1,"\xef\xac\xb3":2}']):
        put("jcs", "literal-%d" % i, t)

    # rpc_model: flags byte + frame per line (bit 0: s2c).
    lines = b"".join((b"\x01" if d == "s2c" else b"\x00") + f + b"\n" for d, f in frames)
    put("rpc_model", "demo", b"\x00" + lines)
    put("rpc_model", "demo-latest-only", b"\x01" + lines)
    put("rpc_model", "batch-cancel-orphan", b"\x00" + b"\n".join([
        b'\x04' + b'2025-01-01T00:00:00.000000+00:00\t[{"jsonrpc":"2.0","id":"a","method":"tools/call","params":'
        b'{"name":"x","arguments":{},"_meta":{"traceparent":"00-1-2-01"}}},{"jsonrpc":"2.0","id":7,"method":"ping"}]',
        b'\x00{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}',
        b'\x05' + b'2025-01-01T00:00:01.500000+00:00\t{"jsonrpc":"2.0","id":"a","result":{"isError":true}}',
        b'\x01{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}}',
        b'\x01{"jsonrpc":"2.0","id":7,"result":{}}',
        b'\x03{"jsonrpc":"2.0","id":9,"res', b'\x09{"jsonrpc":"2.0","id":1.5e300,"method":"x"}']) + b"\n")

    # corpus_import: mode byte, then a case file (raw) or its parts (built).
    put("corpus_import", "case-raw", b"\x00" + cbytes)
    hlen = int.from_bytes(cbytes[16:24], "little")
    header = cbytes[24:24 + hlen]
    tlen = int.from_bytes(cbytes[24 + hlen:32 + hlen], "little")
    ctrace = cbytes[32 + hlen:32 + hlen + tlen]
    objs, pos = [], 32 + hlen + tlen
    while cbytes[pos:pos + 4] == b"OBJ1":
        n = int.from_bytes(cbytes[pos + 8:pos + 16], "little")
        objs.append(cbytes[pos + 48:pos + 48 + n])
        pos += 48 + n
    put("corpus_import", "case-parts", b"\x01" + b"\x00".join([header, ctrace] + objs))
    put("corpus_import", "case-parts-drop", b"\x03" + b"\x00".join([header, ctrace] + objs + [b"unused"]))

    # snap_manifest: each manifest of the case file.
    for i, m in enumerate(json.loads(header)["snapshots"]):
        put("snap_manifest", "case-manifest-%d" % i, json.dumps(m, separators=(",", ":")))

    # gate_shell: context byte + command.
    cmds = c_strings("tests/unit/test_gate_examples.c", r'\s*\{"((?:[^"\\]|\\.)*)", [AFQD],')
    for i, c in enumerate(cmds):
        put("gate_shell", "example-%03d" % i, bytes([i % 8]) + c)

    # gate_policy: policy [NUL calls].
    good = ('{"version":1,"comment":"c","arguments":{"shell":["command","sh"],"ignore":["content"]},'
            '"tools":[{"glob":"run_*","shell":["line"]},{"name":"run_process","shell":["command_line"],"cwd":"cwd"},'
            '{"regex":"^notes_(read|list)$","read_paths":["note"],"read_only":true},{"name":"deploy","floor":"ask"},'
            '{"name":"scratch","write_paths":["where"],"destructive":true}]}')
    calls = ('[{"name":"run_process","arguments":{"command_line":"git push","cwd":"/ws"}},'
             '{"name":"notes_read","arguments":{"note":"/home/u/.ssh/id_rsa"}},'
             '{"name":"x","arguments":{"sh":"git status"},"annotations":{"readOnlyHint":true}},'
             '{"name":"scratch","arguments":{"where":"/tmp/x"}}]')
    put("gate_policy", "good", good)
    put("gate_policy", "good-calls", good + "\0" + calls)
    put("gate_policy", "minimal", '{"version":1}')
    put("gate_policy", "urls-argv", '{"version":1,"arguments":{"urls":["endpoint"],"argv":["args"],'
        '"read_paths":["src"],"write_paths":["dst"]},"tools":[{"glob":"[a-z]*_x\\\\*"}]}\0'
        '{"name":"copy_x*","arguments":{"src":["a","../b"],"dst":"/etc/x","endpoint":"http://h/","args":["rm","-r"]}}')

    # keymap: bit 0 starts from the built-in keymap.
    dk = open(os.path.join(ROOT, "keymaps", "default.keys"), "rb").read()
    put("keymap", "default-over-empty", b"\x02" + dk)
    put("keymap", "user-over-default", b"\x03" + b'# user keys\nglobal <c-x> quit\nturns <m-lt> none\n'
        b'runs J nav.down "down, as j does"\ndetail <f12> help\nglobal \xc3\xa9 quit\n')

    # theme: theme files.
    for t in sorted(os.listdir(os.path.join(ROOT, "themes"))):
        put("theme", t, open(os.path.join(ROOT, "themes", t), "rb").read())

    # verify_policy: policy files.
    put("verify_policy", "rules", '[{"scope":"src","rule":"read-only"},{"scope":"tests","rule":'
        '"no-assertion-weakening"},{"scope":"","rule":"suite-before-success-claim","tools":["make_check","pytest"]}]')
    put("verify_policy", "empty", "[]")
    put("verify_policy", "refused", '[{"scope":"../x","rule":"read-only"}]')

    # mcpcfg: client byte (bit 7: snippet round trip) + configuration file or name NUL argv.
    cfgs = [(0, '{"mcpServers":{"fs":{"command":"/usr/bin/belay","args":["proxy","--","npx","srv"]}}}'),
            (2, '{\n  // Cursor\n  "mcpServers": {"a": {"command": "x", "args": ["//not a comment", "/*", "a,]"],},},\n}'),
            (3, '/* VS Code */ {"servers": {"b": {"type": "stdio", "command": "belay", "args": []}}, "inputs": [1,2,],}'),
            (6, '{"context_servers": {"z": {"source": "custom", "command": "belay", "args": ["connect"], "env": {}}}}'),
            (5, '{"mcpServers": {"u": {"url": "https://example.com/mcp"}}}')]
    for i, (c, t) in enumerate(cfgs):
        put("mcpcfg", "config-%d" % i, bytes([c]) + t.encode())
    put("mcpcfg", "snippet-claude", b"\x80belay\0/usr/local/bin/belay\0proxy\0--scope\0/ws\0--\0npx\0-y\0srv")
    put("mcpcfg", "snippet-zed-quotes", b"\x86n \"q\" \\\0/b in/belay\0connect\0/run/\xc3\xa9/sock")

if __name__ == "__main__":
    main()
