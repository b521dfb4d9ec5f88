"""A real uvicorn server of the web app on a free loopback port, for the tests."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import uvicorn

from evaluate.web.server import create_app


@contextlib.contextmanager
def serve(agents: list[str], **settings) -> Iterator[str]:
    """The page's URL while the server runs on a thread of this process."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app(agents, "127.0.0.1", port, **settings)
    running = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not running.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        running.should_exit = True
        thread.join(timeout=10)
