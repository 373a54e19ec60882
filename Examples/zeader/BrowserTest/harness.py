"""BrowserTest: the harness the scenarios run in.

It names the current step, counts checks, waits (WebDriverWait) for the page
state a check expects, and raises CheckFailed with the step, the expectation,
what the page showed and the zeader servers' last output lines. It also
starts what a scenario needs (zeader commands and servers, browsers) and
registers their cleanup on `cleanup`, an ExitStack that browser_test.main()
closes after each scenario.
"""

from __future__ import annotations

import contextlib
import subprocess
import traceback
from pathlib import Path
from typing import Callable

try:
    from selenium.common.exceptions import TimeoutException, WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # pragma: no cover - reported in browser_test.main()
    pass

from failures import CheckFailed, SetupError, indent
from page import WAIT_SECONDS, Browser, describe, selected_server
from zeader_processes import COMMAND_SECONDS, SERVER_START_SECONDS, STOP_SECONDS, ZeaderServer

TEST_DIRECTORY = Path(__file__).resolve().parent


class BrowserTest:
    """Counts checks, waits with descriptions, and fails with context."""

    def __init__(self, zeader: str, chromium: str, chromedriver: str, screenshots: Path):
        self.zeader_path, self.chromium, self.chromedriver = zeader, chromium, chromedriver
        self.screenshots = screenshots
        self.checks = 0
        self.step = "setup"
        self.servers: list[ZeaderServer] = []
        self.cleanup = contextlib.ExitStack()

    # Steps and checks

    def begin(self, step: str) -> None:
        self.step = step
        print(f"{step}")

    def server_output(self) -> str:
        """The last output lines of this scenario's zeader servers, for a failure report."""
        output = "\n".join(server.tail() for server in self.servers) or "  (no zeader server running)"
        return "  zeader serve output:\n" + output

    def fail(self, expected: str, shown: str) -> None:
        raise CheckFailed(self.step, expected, shown, self.server_output())

    def driver_failure(self, error: WebDriverException) -> CheckFailed:
        """A WebDriver error outside any check (an element gone, Chromium gone),
        as a CheckFailed of the current step; made while the servers still run,
        so that their output shows what they did up to then."""
        frames = [frame for frame in traceback.extract_tb(error.__traceback__)
                  if Path(frame.filename).resolve().parent == TEST_DIRECTORY]
        where = f"\nat {Path(frames[-1].filename).name}:{frames[-1].lineno} ({frames[-1].name}): {frames[-1].line}" \
            if frames else ""
        return CheckFailed(self.step, "every WebDriver command to succeed",
                           f"{type(error).__name__}: {(error.msg or '').strip() or error}{where}",
                           self.server_output())

    def check(self, condition: bool, expected: str, shown: str | Callable[[], str] = "") -> None:
        if not condition:
            self.fail(expected, shown() if callable(shown) else shown)
        self.checks += 1

    def wait(self, browser: Browser, expected: str, predicate: Callable[[dict], object]):
        """Waits until `predicate(page state)` is truthy in `browser`, and returns its value."""
        def satisfied(_driver):
            return predicate(browser.state())

        try:
            value = WebDriverWait(browser.driver, WAIT_SECONDS, poll_frequency=0.1,
                                  ignored_exceptions=(WebDriverException,)).until(satisfied)
        except TimeoutException:
            self.fail(f"{expected} (in {browser.name}, within {WAIT_SECONDS} s)", describe(browser.safe_state()))
        self.checks += 1
        return value

    def wait_all(self, browsers: list[Browser], expected: str, predicate: Callable[[dict], object]) -> None:
        for browser in browsers:
            self.wait(browser, expected, predicate)

    # Processes and browsers

    def zeader(self, *arguments: str, succeed: bool = True) -> subprocess.CompletedProcess:
        """Runs `zeader ARGUMENTS…` to its end; checks its exit status."""
        command = [self.zeader_path, *arguments]
        try:
            result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                    timeout=COMMAND_SECONDS, errors="replace")
        except subprocess.TimeoutExpired as timeout:
            self.fail(f"`{' '.join(command)}` to finish within {COMMAND_SECONDS} s",
                      f"stdout:\n{timeout.stdout or ''}\nstderr:\n{timeout.stderr or ''}")
        shown = f"exit status {result.returncode}\nstdout:\n{indent(result.stdout.strip(), 2)}\nstderr:\n{indent(result.stderr.strip(), 2)}"
        if succeed:
            self.check(result.returncode == 0, f"`{' '.join(command)}` to exit 0", shown)
        else:
            self.check(result.returncode != 0 and result.stderr.strip() != "",
                       f"`{' '.join(command)}` to fail: a non-zero exit status and a message on stderr", shown)
        return result

    def start_server(self, store: str | None, name: str, environment: dict | None = None) -> ZeaderServer:
        server = ZeaderServer(self.zeader_path, store, name, environment)
        self.servers.append(server)
        self.cleanup.callback(server.stop)
        url = server.wait_until_serving()
        self.check(url is not None,
                   f"{name} to print `zeader: serving http://127.0.0.1:PORT/` as its first stdout line "
                   f"naming an http:// address, within {SERVER_START_SECONDS} s",
                   f"first such line: {server.first_http_line!r}")
        print(f"  {name}: {url}")
        return server

    def stop_server(self, server: ZeaderServer) -> None:
        """Stops a server with SIGTERM, pages still open, and checks it ends in time."""
        status = server.stop()
        self.check(status is not None, f"{server.name} to exit within {STOP_SECONDS} s of SIGTERM (pages still open)",
                   "it had to be killed")

    def open_browser(self, name: str) -> Browser:
        try:
            browser = Browser(name, self.chromium, self.chromedriver)
        except WebDriverException as error:
            raise SetupError(f"cannot start Chromium for {name}: {error.msg or error}") from error
        self.cleanup.callback(browser.quit)
        return browser

    def load(self, browser: Browser, url: str) -> dict:
        """Loads `url` and waits for the live stream's first snapshot."""
        browser.load(url)
        return self.wait_live(browser, f"the page at {url}")

    def navigate(self, browser: Browser, title: str) -> dict:
        """Clicks a server's name and waits for the new page to go live with it selected."""
        try:
            browser.click_server_link(title)
        except (WebDriverException, TimeoutException) as error:
            self.fail(f"a click on the server {title!r}'s a.name to load a new page", f"{error}\n{describe(browser.safe_state())}")
        self.wait_live(browser, f"the page of {title!r}")
        return self.wait(browser, f"{title!r} to be the selected server (li.server.selected)",
                         lambda state: state if (selected_server(state) or {}).get("title") == title else None)

    def wait_live(self, browser: Browser, what: str) -> dict:
        return self.wait(browser, f"{what} to go live: <body data-live=\"connected\">",
                         lambda state: state if state["live"] == "connected" else None)

    def screenshot(self, browser: Browser, name: str) -> None:
        browser.screenshot(self.screenshots, name)
