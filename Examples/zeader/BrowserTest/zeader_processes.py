"""The processes and servers around the browsers.

- ZeaderServer: one `zeader serve` (or bare `zeader`) process on a free port,
  its output kept for failure reports, stopped with SIGTERM.
- feed_http_server: a local HTTP server that the add-feed form imports from.
- drop_schema: removes the PostgreSQL scenario's schema afterwards.

One-shot commands (`zeader import`, `zeader read`) are run and checked by
harness.BrowserTest.zeader.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import http.server
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

from failures import indent

SERVER_START_SECONDS = 60  # `zeader serve` printing its address (creating a PostgreSQL schema takes a while)
COMMAND_SECONDS = 120  # one `zeader import` or `zeader read`
STOP_SECONDS = 10  # `zeader serve` exiting after SIGTERM

SERVING_LINE = re.compile(r"zeader: serving (http://127\.0\.0\.1:(\d+)/)")


class ZeaderServer:
    """One `zeader serve` process, its output drained by two threads."""

    def __init__(self, zeader: str, store: str | None, name: str, environment: dict | None = None):
        self.name = name
        self.lines: collections.deque[str] = collections.deque(maxlen=400)
        self.lock = threading.Lock()
        self.first_http_line: str | None = None
        self.saw_http_line = threading.Event()
        # Without a store: README's first command, `zeader` alone (sample
        # feeds imported on first run into the default directory).
        command = [zeader, "serve", "--store", store, "--port", "0"] if store else [zeader, "--port", "0"]
        self.process = subprocess.Popen(
            command, env=environment,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, bufsize=1, errors="replace")
        self.threads = [
            threading.Thread(target=self._drain, args=(self.process.stdout, ""), daemon=True),
            threading.Thread(target=self._drain, args=(self.process.stderr, "stderr: "), daemon=True),
        ]
        for thread in self.threads:
            thread.start()
        self.url: str | None = None

    def _drain(self, pipe, prefix: str) -> None:
        for line in pipe:
            line = line.rstrip("\n")
            with self.lock:
                self.lines.append(prefix + line)
            if not prefix and "http://" in line and not self.saw_http_line.is_set():
                self.first_http_line = line
                self.saw_http_line.set()
        pipe.close()

    def wait_until_serving(self) -> str | None:
        """The page's address, from the first stdout line naming one; None when the
        process exits or prints nothing of the kind in time."""
        deadline = time.monotonic() + SERVER_START_SECONDS
        while time.monotonic() < deadline and not self.saw_http_line.wait(0.1):
            if self.process.poll() is not None:
                self.saw_http_line.wait(1)  # its last lines may still be in the pipe
                break
        match = SERVING_LINE.fullmatch(self.first_http_line or "")
        self.url = match.group(1) if match else None
        return self.url

    def tail(self, count: int = 40) -> str:
        with self.lock:
            lines = list(self.lines)[-count:]
        state = "running" if self.process.poll() is None else f"exited with status {self.process.returncode}"
        return f"  {self.name} (pid {self.process.pid}, {state}), last {len(lines)} lines of output:\n" + indent(
            "\n".join(lines), 4)

    def stop(self) -> int | None:
        """Sends SIGTERM and waits; kills it when it does not end in time.
        Returns its exit status, or None when it had to be killed."""
        if self.process.poll() is not None:
            return self.process.returncode
        self.process.terminate()
        try:
            return self.process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None
        finally:
            for thread in self.threads:
                thread.join(2)


class QuietFeedHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the fixtures; logs requests to a list instead of stderr."""

    requests: list[str] = []

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (the base class's name)
        self.requests.append(format % args)


@contextlib.contextmanager
def feed_http_server(directory: Path):
    """An HTTP server on 127.0.0.1 and a free port serving `directory`; yields its base URL."""
    handler = functools.partial(QuietFeedHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def drop_schema(base_url: str, schema: str) -> None:
    """Drops the test's schema with psql, when there is one; failures are ignored."""
    if not shutil.which("psql"):
        print(f"  psql not found: schema {schema} left in place")
        return
    with contextlib.suppress(Exception):
        subprocess.run(["psql", base_url, "-q", "-c", f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'],
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
