"""`make lab` starts JupyterLab for a normal user and for root: the server lists the
notebooks through its REST API and runs a cell in a kernel; the test stops
everything it started."""

import asyncio
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.needs("jupyterlab", "tornado")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(url, method="GET", body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as response:
        text = response.read().decode()
    return json.loads(text) if text else None


async def run_cell(ws_url: str, code: str) -> str:
    """Execute `code` over the kernel's websocket; return what it printed."""
    from tornado.websocket import websocket_connect

    ws = await websocket_connect(ws_url)
    msg_id = uuid.uuid4().hex
    ws.write_message(json.dumps({
        "header": {"msg_id": msg_id, "msg_type": "execute_request",
                   "username": "test", "session": uuid.uuid4().hex,
                   "version": "5.3", "date": ""},
        "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
        "content": {"code": code, "silent": False, "store_history": False,
                    "user_expressions": {}, "allow_stdin": False},
    }))
    printed = ""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        raw = await asyncio.wait_for(ws.read_message(), timeout=60)
        message = json.loads(raw)
        if message.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        if message["msg_type"] == "stream":
            printed += message["content"]["text"]
        if (message["msg_type"] == "status"
                and message["content"]["execution_state"] == "idle"):
            break
    ws.close()
    return printed


def test_make_lab_serves_the_notebooks_and_runs_a_cell(tmp_path):
    port, token = free_port(), uuid.uuid4().hex
    options = (f"--no-browser --port={port} --ServerApp.port_retries=0 "
               f"--IdentityProvider.token={token}")
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
               JUPYTER_CONFIG_DIR=str(tmp_path / "config"))
    server = subprocess.Popen(["make", "--no-print-directory", "lab",
                               f"LAB_OPTIONS={options}"], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if server.poll() is not None:
                pytest.fail("make lab exited: " + server.stdout.read()[-2000:])
            try:
                request(f"{base}/api/status?token={token}")
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("JupyterLab did not answer within 90 s")
                time.sleep(0.5)
        listing = request(f"{base}/api/contents/?token={token}")
        names = {item["name"] for item in listing["content"]}
        assert {"deberta_tutorial.ipynb", "sample_size.ipynb"} <= names
        kernel = request(f"{base}/api/kernels?token={token}", "POST",
                         {"name": "python3"})
        ws_url = (f"ws://127.0.0.1:{port}/api/kernels/{kernel['id']}/channels"
                  f"?token={token}")
        printed = asyncio.run(run_cell(ws_url, "import evp; print(6 * 7)"))
        assert printed.strip() == "42"
        request(f"{base}/api/kernels/{kernel['id']}?token={token}", "DELETE")
        assert request(f"{base}/api/kernels?token={token}") == []
        request(f"{base}/api/shutdown?token={token}", "POST")
        server.wait(timeout=30)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
    assert server.returncode is not None


@pytest.mark.parametrize("uid, allowed", [("0", True), ("1000", False)])
def test_make_lab_allows_root_only_for_root(tmp_path, uid, allowed):
    fake = tmp_path / "id"  # `id -u` as that user would see it
    fake.write_text(f"#!/bin/sh\necho {uid}\n")
    fake.chmod(0o755)
    env = dict(os.environ, PATH=f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run(["make", "--no-print-directory", "-n", "lab"], cwd=ROOT,
                          env=env, capture_output=True, text=True, check=True)
    command = done.stdout.strip().splitlines()[-1]
    assert "jupyter lab" in command and command.endswith("notebooks")
    assert ("--allow-root" in command) == allowed
