#!/usr/bin/env python3
"""zeader's browser end-to-end test.

Drives two headless Chromium windows against `zeader serve` and checks that
what one window, another process or the add-feed form changes shows up live
in every window (Server-Sent Events), first on an SQLite store, then, when
COHERENCE_POSTGRES_URL is set, on PostgreSQL with two server processes.

    python3 Examples/zeader/BrowserTest/browser_test.py --zeader .build/debug/zeader

Needs Selenium 4 (`pip install selenium`) and Debian's `chromium` and
`chromium-driver`. Examples/zeader/BrowserTest/run builds zeader first.

Every check waits (WebDriverWait) for the DOM state it expects; nothing
sleeps a fixed time. The first failed check stops the test with its step,
what was expected, what the page showed and the servers' last output lines.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import datetime
import functools
import http.server
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Callable

try:
    from selenium import webdriver
    from selenium.common.exceptions import TimeoutException, WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # pragma: no cover - reported in main()
    webdriver = None

REPOSITORY = Path(__file__).resolve().parents[3]
EXAMPLE = REPOSITORY / "Examples" / "zeader"
FEEDS = EXAMPLE / "Feeds"
FIXTURES = EXAMPLE / "Tests" / "ZeaderTests" / "Fixtures"
SAMPLE_FEEDS = [FEEDS / "coherence-blog.xml", FEEDS / "queue-and-merge.xml", FEEDS / "swift-server-notes.xml"]

WAIT_SECONDS = 20  # every DOM wait
SERVER_START_SECONDS = 60  # `zeader serve` printing its address (creating a PostgreSQL schema takes a while)
COMMAND_SECONDS = 120  # one `zeader import` or `zeader read`
STOP_SECONDS = 10  # `zeader serve` exiting after SIGTERM

SERVING_LINE = re.compile(r"zeader: serving (http://127\.0\.0\.1:(\d+)/)")
TITLE_TOTAL = re.compile(r"zeader \((\d+) unread\)")

# One read of the page's state, so that a check never sees half an update
# and never holds an element the next event replaces.
PAGE_STATE_SCRIPT = """
const text = element => element ? element.textContent.trim() : null;
const status = document.getElementById('status');
return {
  url: location.href,
  title: document.title,
  live: document.body ? (document.body.getAttribute('data-live') ?? null) : null,
  servers: Array.from(document.querySelectorAll('#servers > li.server'), li => ({
    id: li.id,
    dataId: li.getAttribute('data-id'),
    title: text(li.querySelector('a.name')),
    count: text(li.querySelector('span.count')),
    selected: li.classList.contains('selected'),
    hasMarkAll: li.querySelector('button.mark-all') !== null,
  })),
  items: Array.from(document.querySelectorAll('#items > li.item'), li => ({
    id: li.id,
    dataId: li.getAttribute('data-id'),
    title: text(li.querySelector('span.title')),
    read: li.classList.contains('read'),
    unread: li.classList.contains('unread'),
    datetime: li.querySelector('time') ? li.querySelector('time').getAttribute('datetime') : null,
    hasTime: li.querySelector('time') !== null,
  })),
  status: text(status),
  hasForm: document.querySelector('form#add-feed input[name="url"]') !== null,
};
"""


# MARK: Failures


class CheckFailed(Exception):
    """A check that did not hold: its step, what was expected, what was shown."""

    def __init__(self, step: str, expected: str, shown: str, output: str):
        super().__init__(f"{step}: {expected}")
        self.step, self.expected, self.shown, self.output = step, expected, shown, output

    def report(self) -> str:
        return "\n".join([
            f"browser test FAILED in step {self.step}",
            f"  expected: {self.expected}",
            "  shown:",
            indent(self.shown, 4),
            self.output,
        ])


class SetupError(Exception):
    """Something the test needs is missing (Chromium, Selenium, zeader)."""


def indent(text: str, spaces: int) -> str:
    return "\n".join(" " * spaces + line for line in text.splitlines()) if text else " " * spaces + "(nothing)"


# MARK: Expected feeds


class Feed:
    """A feed file's title and item titles, read with ElementTree."""

    ATOM = "{http://www.w3.org/2005/Atom}"

    def __init__(self, path: Path):
        root = ET.parse(path).getroot()
        if root.tag == "rss":
            channel = root.find("channel")
            self.title = channel.findtext("title").strip()
            self.items = [item.findtext("title").strip() for item in channel.findall("item")]
        elif root.tag == self.ATOM + "feed":
            self.title = root.findtext(self.ATOM + "title").strip()
            self.items = [entry.findtext(self.ATOM + "title").strip() for entry in root.findall(self.ATOM + "entry")]
        else:
            raise SetupError(f"{path} is neither RSS nor Atom")
        self.path = path


# MARK: Page state


def count_of(server: dict) -> int | None:
    """A server row's unread count, or None when the badge is not a number."""
    try:
        return int(server["count"])
    except (TypeError, ValueError):
        return None


def title_total(state: dict) -> int | None:
    """The total unread count `document.title` shows."""
    match = TITLE_TOTAL.fullmatch(state["title"] or "")
    return int(match.group(1)) if match else None


def server_titled(state: dict, title: str) -> dict | None:
    return next((server for server in state["servers"] if server["title"] == title), None)


def count_titled(state: dict, title: str) -> int | None:
    server = server_titled(state, title)
    return count_of(server) if server else None


def server_with_id(state: dict, element_id: str) -> dict | None:
    return next((server for server in state["servers"] if server["id"] == element_id), None)


def selected_server(state: dict) -> dict | None:
    selected = [server for server in state["servers"] if server["selected"]]
    return selected[0] if len(selected) == 1 else None


def item_with_id(state: dict, element_id: str) -> dict | None:
    return next((item for item in state["items"] if item["id"] == element_id), None)


def first_unread(state: dict) -> dict | None:
    return next((item for item in state["items"] if item["unread"] and not item["read"]), None)


def server_list(state: dict) -> list[tuple[str, str, str]]:
    """What the server list shows: (title, count, element id) in order."""
    return [(server["title"], server["count"], server["id"]) for server in state["servers"]]


def describe(state: dict | None) -> str:
    """The page's state, for a failure message."""
    if state is None:
        return "(the page's state could not be read)"
    lines = [
        f"url: {state['url']}",
        f"document.title: {state['title']!r}    body[data-live]: {state['live']!r}",
        f"#servers ({len(state['servers'])}):",
    ]
    for server in state["servers"]:
        mark = "*" if server["selected"] else " "
        lines.append(f"  {mark} {server['title']!r}  count={server['count']!r}  id={server['id']!r}")
    lines.append(f"#items ({len(state['items'])}):")
    for item in state["items"]:
        flags = "read" if item["read"] else "unread" if item["unread"] else "neither read nor unread"
        lines.append(f"    [{flags}] {item['title']!r}  {item['datetime'] or ''}  id={item['id']!r}")
    lines.append(f"#status: {state['status']!r}")
    return "\n".join(lines)


# MARK: Processes


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


# MARK: Browser


class Browser:
    """One headless Chromium (its own webdriver session) showing zeader's page."""

    def __init__(self, name: str, chromium: str, chromedriver: str):
        self.name = name
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,900"):
            options.add_argument(argument)
        self.driver = webdriver.Chrome(service=Service(chromedriver), options=options)
        self.last_state: dict | None = None

    def state(self) -> dict:
        self.last_state = self.driver.execute_script(PAGE_STATE_SCRIPT)
        return self.last_state

    def safe_state(self) -> dict | None:
        with contextlib.suppress(WebDriverException):
            return self.state()
        return self.last_state

    def load(self, url: str) -> None:
        self.driver.get(url)

    def click_server_link(self, title: str) -> None:
        """Clicks the server's name (a plain link) and waits for the new document."""
        body = self.driver.find_element(By.TAG_NAME, "body")
        self._server_row(title).find_element(By.CSS_SELECTOR, "a.name").click()
        WebDriverWait(self.driver, WAIT_SECONDS).until(expected_conditions.staleness_of(body))

    def click_item(self, element_id: str) -> None:
        self.driver.find_element(By.ID, element_id).find_element(By.CSS_SELECTOR, "span.title").click()

    def click_mark_all(self, element_id: str) -> None:
        self.driver.find_element(By.ID, element_id).find_element(By.CSS_SELECTOR, "button.mark-all").click()

    def submit_feed(self, address: str) -> None:
        form = self.driver.find_element(By.ID, "add-feed")
        field = form.find_element(By.NAME, "url")
        field.clear()
        field.send_keys(address)
        form.find_element(By.TAG_NAME, "button").click()

    def _server_row(self, title: str):
        for row in self.driver.find_elements(By.CSS_SELECTOR, "#servers > li.server"):
            if row.find_element(By.CSS_SELECTOR, "a.name").text.strip() == title:
                return row
        raise WebDriverException(f"no server titled {title!r} in {self.name}")

    def screenshot(self, directory: Path, name: str) -> Path:
        path = directory / name
        self.driver.save_screenshot(str(path))
        print(f"  screenshot: {path}")
        return path

    def quit(self) -> None:
        with contextlib.suppress(Exception):
            self.driver.quit()


# MARK: The test


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

    def fail(self, expected: str, shown: str) -> None:
        output = "\n".join(server.tail() for server in self.servers) or "  (no zeader server running)"
        raise CheckFailed(self.step, expected, shown, "  zeader serve output:\n" + output)

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


# MARK: Checks shared by the scenarios


def check_page_shape(test: BrowserTest, state: dict, feeds: list[Feed]) -> None:
    """The server list holds exactly `feeds`, sorted by title, each row as the
    contract has it, one of them selected, and the title shows the total."""
    titles = [server["title"] for server in state["servers"]]
    expected_titles = sorted(feed.title for feed in feeds)
    test.check(titles == expected_titles, f"the servers {expected_titles} in this order (sorted by title)", describe(state))
    for server in state["servers"]:
        test.check(server["id"] == f"server-{server['dataId']}" and server["dataId"],
                   f"li.server id=\"server-ID\" data-id=\"ID\" for {server['title']!r}", describe(state))
        test.check(count_of(server) is not None and server["hasMarkAll"],
                   f"a numeric span.count and a button.mark-all in {server['title']!r}'s row", describe(state))
    test.check(selected_server(state) is not None, "exactly one li.server.selected", describe(state))
    counts = sum(count_of(server) for server in state["servers"])
    test.check(title_total(state) == counts,
               f"document.title `zeader ({counts} unread)`, the sum of the servers' counts", describe(state))
    test.check(state["hasForm"], "form#add-feed with an input named url", describe(state))


def check_selected_items(test: BrowserTest, state: dict, feed: Feed | None) -> None:
    """The selected server's count is its number of li.item.unread; its items
    are the feed's, newest first, each row as the contract has it."""
    server = selected_server(state)
    test.check(server is not None, "exactly one li.server.selected", describe(state))
    unread = sum(1 for item in state["items"] if item["unread"] and not item["read"])
    test.check(count_of(server) == unread,
               f"{server['title']!r}'s count to equal its number of li.item.unread ({unread})", describe(state))
    for item in state["items"]:
        test.check(item["id"] == f"item-{item['dataId']}" and item["dataId"] and item["read"] != item["unread"],
                   f"li.item id=\"item-ID\" data-id=\"ID\", class read or unread, for {item['title']!r}", describe(state))
    if feed is not None:
        test.check(sorted(item["title"] for item in state["items"]) == sorted(feed.items),
                   f"the items of {feed.path.name}: {feed.items}", describe(state))
    if state["items"] and all(item["datetime"] for item in state["items"]):
        dates = [datetime.datetime.fromisoformat(item["datetime"].replace("Z", "+00:00")) for item in state["items"]]
        test.check(dates == sorted(dates, reverse=True), "the items newest first (by their <time datetime>)", describe(state))
    else:
        test.check(all(item["hasTime"] for item in state["items"]), "a <time> in every li.item", describe(state))


def unread_item_changes(test: BrowserTest, browsers: list[Browser], item_id: str, server_id: str,
                        count_before: int, total_before: int, cause: str) -> None:
    """Waits in every browser for the item to be read, its server's count one
    lower and the title's total one lower."""
    def read_and_counted(state: dict) -> bool:
        item, server = item_with_id(state, item_id), server_with_id(state, server_id)
        return (item is not None and item["read"] and not item["unread"] and server is not None
                and count_of(server) == count_before - 1 and title_total(state) == total_before - 1)

    test.wait_all(browsers, f"after {cause}: the item {item_id!r} with class read, its server's count "
                            f"{count_before - 1} and document.title `zeader ({total_before - 1} unread)`",
                  read_and_counted)


def all_read(test: BrowserTest, browsers: list[Browser], server_id: str, total_before: int, count_before: int,
             cause: str) -> None:
    """Waits in every browser for the server's count to be 0, the total to drop
    by its former count, and, where the server is shown, every item read."""
    def done(state: dict) -> bool:
        server = server_with_id(state, server_id)
        shown = (selected_server(state) or {}).get("id") == server_id
        return (server is not None and count_of(server) == 0 and title_total(state) == total_before - count_before
                and (not shown or all(item["read"] and not item["unread"] for item in state["items"])))

    test.wait_all(browsers, f"after {cause}: {server_id!r}'s count 0, every one of its items read where it is shown, "
                            f"and document.title `zeader ({total_before - count_before} unread)`", done)


# MARK: A. SQLite


def first_run_scenario(test: BrowserTest, feeds: list[Feed]) -> None:
    """README's first command: `zeader` alone imports the sample feeds into an
    empty default directory and serves them."""
    directory = Path(tempfile.mkdtemp(prefix="zeader-first-run-"))
    test.begin("F0 first run: `zeader --port 0` with an empty COHERENCE_STORE_DIRECTORY")
    server = test.start_server(None, "zeader (first run)", dict(os.environ, COHERENCE_STORE_DIRECTORY=str(directory)))
    test.check((directory / "Zeader.sqlite").exists(), f"Zeader.sqlite in {directory}", str(list(directory.iterdir())))
    window = test.open_browser("first-run window")
    test.load(window, server.url)
    test.wait(window, "the 3 sample feeds in #servers", lambda state: len(state["servers"]) == 3)
    state = window.state()
    check_page_shape(test, state, feeds)
    total = sum(len(feed.items) for feed in feeds)
    test.check(title_total(state) == total, f"all {total} sample items unread", describe(state))
    test.screenshot(window, "first-run.png")
    test.stop_server(server)
    shutil.rmtree(directory, ignore_errors=True)


def sqlite_scenario(test: BrowserTest, feeds: list[Feed]) -> None:
    directory = Path(tempfile.mkdtemp(prefix="zeader-browser-"))
    store = str(directory / "Zeader.sqlite")
    late = Feed(FIXTURES / "late-breaking.xml")
    web = Feed(FIXTURES / "from-the-web.xml")
    by_title = {feed.title: feed for feed in feeds + [late, web]}

    test.begin("A0 SQLite: import the sample feeds, start zeader serve")
    print(f"  store: {store}")
    test.zeader("import", "--store", store, *(str(feed.path) for feed in feeds))
    server = test.start_server(store, "zeader serve (SQLite)")

    # 1. Window 1: three feeds, counts that add up, each feed's items.
    test.begin("A1 window 1 shows the three feeds")
    window1 = test.open_browser("window 1")
    state = test.load(window1, server.url)
    test.wait(window1, "3 servers in #servers", lambda state: len(state["servers"]) == 3)
    state = window1.state()
    check_page_shape(test, state, feeds)
    for feed in feeds:
        test.check(count_titled(state, feed.title) == len(feed.items),
                   f"{feed.title!r}'s count {len(feed.items)}, all its items unread", describe(state))
    check_selected_items(test, state, by_title[selected_server(state)["title"]])
    first_title = state["servers"][0]["title"]
    for title in [server["title"] for server in state["servers"]][1:] + [first_title]:
        state = test.navigate(window1, title)
        check_selected_items(test, state, by_title[title])
    test.screenshot(window1, "sqlite-1-window1.png")

    # 2. A click in window 1.
    test.begin("A2 a click marks an item read in window 1")
    state = window1.state()
    selected, item = selected_server(state), first_unread(state)
    test.check(item is not None, "an unread item in the selected server", describe(state))
    count, total = count_of(selected), title_total(state)
    window1.click_item(item["id"])
    unread_item_changes(test, [window1], item["id"], selected["id"], count, total, f"a click on {item['title']!r}")
    test.screenshot(window1, "sqlite-2-window1.png")

    # 3. Window 2 follows window 1, and window 1 follows window 2.
    test.begin("A3 a second window shows the same, and its click reaches window 1")
    window2 = test.open_browser("window 2")
    test.load(window2, window1.driver.current_url)
    reference = window1.state()
    test.wait(window2, f"the servers and counts of window 1: {server_list(reference)}, "
                       f"and document.title {reference['title']!r}",
              lambda state: server_list(state) == server_list(reference) and state["title"] == reference["title"])
    state = window2.state()
    test.check([(i["id"], i["read"]) for i in state["items"]] == [(i["id"], i["read"]) for i in reference["items"]],
               "window 2's items, read and unread, to be window 1's",
               lambda: "window 1:\n" + describe(reference) + "\nwindow 2:\n" + describe(state))
    item = first_unread(state)
    test.check(item is not None, "an unread item in window 2", describe(state))
    count, total = count_of(selected_server(state)), title_total(state)
    window2.click_item(item["id"])
    unread_item_changes(test, [window2, window1], item["id"], selected["id"], count, total,
                        f"a click in window 2 on {item['title']!r}")
    test.screenshot(window1, "sqlite-3-window1.png")
    test.screenshot(window2, "sqlite-3-window2.png")

    # 4. Another process marks an item read.
    test.begin("A4 `zeader read` in another process reaches both windows")
    state = window1.state()
    item = first_unread(state)
    test.check(item is not None, "an unread item in window 1", describe(state))
    count, total = count_of(selected_server(state)), title_total(state)
    test.zeader("read", "--store", store, item["title"])
    unread_item_changes(test, [window1, window2], item["id"], selected["id"], count, total,
                        f"`zeader read {item['title']!r}`")
    test.zeader("read", "--store", store, "No item is titled like this", succeed=False)
    test.screenshot(window1, "sqlite-4-window1.png")

    # 5. Another process imports a feed.
    test.begin("A5 `zeader import` in another process adds a feed to both windows")
    before = window1.state()
    test.zeader("import", "--store", store, str(late.path))
    expected_total = title_total(before) + len(late.items)

    def late_breaking_listed(state: dict) -> bool:
        row = server_titled(state, late.title)
        titles = [server["title"] for server in state["servers"]]
        return (row is not None and count_of(row) == len(late.items) and titles == sorted(titles)
                and title_total(state) == expected_total)

    test.wait_all([window1, window2], f"a server {late.title!r} with count {len(late.items)}, in title order, "
                                      f"and document.title `zeader ({expected_total} unread)`", late_breaking_listed)
    test.check((selected_server(window1.state()) or {}).get("id") == selected["id"],
               f"window 1 still to show {selected['title']!r}", lambda: describe(window1.last_state))
    test.screenshot(window1, "zeader.png")
    test.screenshot(window2, "sqlite-5-window2.png")

    # 6. The add-feed form, from a web server.
    test.begin("A6 the add-feed form imports a feed over HTTP")
    with feed_http_server(FIXTURES) as base:
        address = base + web.path.name
        total = title_total(window1.state())
        window1.submit_feed(address)
        test.wait(window1, f"#status to say the feed was imported (\"Imported\" or {web.title!r}) after submitting {address}",
                  lambda state: state["status"] and ("Imported" in state["status"] or web.title in state["status"]))
        test.wait_all([window1, window2],
                      f"a server {web.title!r} with count {len(web.items)} and document.title "
                      f"`zeader ({total + len(web.items)} unread)`",
                      lambda state: count_titled(state, web.title) == len(web.items)
                      and title_total(state) == total + len(web.items))
    test.screenshot(window1, "sqlite-6-window1.png")

    # 7. The form refuses what no feed comes from.
    test.begin("A7 the add-feed form refuses an address that is not a feed's")
    before1, before2 = server_list(window1.state()), server_list(window2.state())
    window2.submit_feed("not a url")
    test.wait(window2, "#status to show an error message for `not a url`",
              lambda state: state["status"] and not state["status"].startswith("Importing")
              and "Imported" not in state["status"])
    state2 = window2.state()
    print(f"  #status: {state2['status']!r}")
    test.check(server_list(state2) == before2 and state2["live"] == "connected",
               f"window 2's servers unchanged: {before2}", describe(state2))
    state1 = window1.state()
    test.check(server_list(state1) == before1, f"window 1's servers unchanged: {before1}", describe(state1))
    test.screenshot(window2, "sqlite-7-window2.png")

    # 8. Mark all read.
    test.begin("A8 \"Mark all read\" in window 2 reaches window 1")
    state = window2.state()
    target = selected_server(state)
    count, total = count_of(target), title_total(state)
    test.check(count > 0, f"unread items left in {target['title']!r}", describe(state))
    window2.click_mark_all(target["id"])
    all_read(test, [window2, window1], target["id"], total, count, f"\"Mark all read\" on {target['title']!r}")
    test.screenshot(window1, "sqlite-8-window1.png")
    test.screenshot(window2, "sqlite-8-window2.png")

    test.begin("A9 zeader serve stops on SIGTERM")
    test.stop_server(server)
    shutil.rmtree(directory, ignore_errors=True)


# MARK: B. PostgreSQL


def postgres_scenario(test: BrowserTest, feeds: list[Feed], base_url: str) -> None:
    schema = "zeader_browser_" + secrets.token_hex(4)
    store = base_url + ("&" if "?" in base_url else "?") + "schema=" + schema
    test.cleanup.callback(drop_schema, base_url, schema)  # runs after the servers stop (ExitStack order)

    test.begin("B0 PostgreSQL: import the sample feeds, start two zeader serve processes")
    print(f"  schema: {schema}")
    test.zeader("import", "--store", store, *(str(feed.path) for feed in feeds))
    server1 = test.start_server(store, "zeader serve 1 (PostgreSQL)")
    server2 = test.start_server(store, "zeader serve 2 (PostgreSQL)")

    test.begin("B1 window 1 on process 1, window 2 on process 2")
    window1 = test.open_browser("postgres window 1")
    window2 = test.open_browser("postgres window 2")
    test.load(window1, server1.url)
    test.load(window2, server2.url)
    test.wait(window1, f"{len(feeds)} servers", lambda state: len(state["servers"]) == len(feeds))
    reference = window1.state()
    check_page_shape(test, reference, feeds)
    test.wait(window2, f"window 1's servers and counts: {[(t, c) for t, c, _ in server_list(reference)]}",
              lambda state: [(t, c) for t, c, _ in server_list(state)] == [(t, c) for t, c, _ in server_list(reference)])
    test.screenshot(window1, "postgres-1-window1.png")

    test.begin("B2 a click in window 1 (process 1) reaches window 2 (process 2)")
    state = window1.state()
    selected, item = selected_server(state), first_unread(state)
    test.check(item is not None, "an unread item in window 1", describe(state))
    state2 = window2.state()
    selected2 = selected_server(state2)
    item2 = next((i for i in state2["items"] if i["title"] == item["title"] and i["unread"]), None)
    test.check(selected2 is not None and selected2["title"] == selected["title"] and item2 is not None,
               f"window 2 to show {selected['title']!r} and {item['title']!r} unread too", describe(state2))
    window1.click_item(item["id"])
    unread_item_changes(test, [window1], item["id"], selected["id"], count_of(selected), title_total(state),
                        f"a click on {item['title']!r}")
    unread_item_changes(test, [window2], item2["id"], selected2["id"], count_of(selected2), title_total(state2),
                        f"a click in window 1 (process 1) on {item['title']!r}")
    test.screenshot(window2, "postgres-2-window2.png")

    test.begin("B3 \"Mark all read\" in window 2 (process 2) reaches window 1 (process 1)")
    state1, state2 = window1.state(), window2.state()
    target1, target2 = selected_server(state1), selected_server(state2)
    window2.click_mark_all(target2["id"])
    all_read(test, [window2], target2["id"], title_total(state2), count_of(target2), "\"Mark all read\" in window 2")
    all_read(test, [window1], target1["id"], title_total(state1), count_of(target1),
             "\"Mark all read\" in window 2 (process 2)")
    test.screenshot(window1, "postgres-3-window1.png")

    test.begin("B4 `zeader read` in a third process reaches both windows")
    other = next(feed.title for feed in sorted(feeds, key=lambda feed: feed.title) if feed.title != target1["title"])
    for window in (window1, window2):
        test.navigate(window, other)
    state1, state2 = window1.state(), window2.state()
    item = first_unread(state1)
    test.check(item is not None, f"an unread item in {other!r}", describe(state1))
    item2 = next((i for i in state2["items"] if i["title"] == item["title"]), None)
    test.check(item2 is not None, f"window 2 to show {item['title']!r}", describe(state2))
    test.zeader("read", "--store", store, item["title"])
    unread_item_changes(test, [window1], item["id"], selected_server(state1)["id"], count_of(selected_server(state1)),
                        title_total(state1), f"`zeader read {item['title']!r}`")
    unread_item_changes(test, [window2], item2["id"], selected_server(state2)["id"], count_of(selected_server(state2)),
                        title_total(state2), f"`zeader read {item['title']!r}`")
    test.screenshot(window1, "postgres-4-window1.png")
    test.screenshot(window2, "postgres-4-window2.png")

    test.begin("B5 both zeader serve processes stop on SIGTERM")
    test.stop_server(server1)
    test.stop_server(server2)


def drop_schema(base_url: str, schema: str) -> None:
    """Drops the test's schema with psql, when there is one; failures are ignored."""
    if not shutil.which("psql"):
        print(f"  psql not found: schema {schema} left in place")
        return
    with contextlib.suppress(Exception):
        subprocess.run(["psql", base_url, "-q", "-c", f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'],
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=60)


# MARK: Main


def main() -> int:
    arguments = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    arguments.add_argument("--zeader", required=True, help="the zeader executable")
    arguments.add_argument("--screenshots", default=str(REPOSITORY / ".build" / "zeader-browser"),
                           help="where screenshots go (default: .build/zeader-browser)")
    arguments.add_argument("--chromium", default="/usr/bin/chromium")
    arguments.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    arguments.add_argument("--only", choices=["sqlite", "postgres"], help="run one scenario only")
    options = arguments.parse_args()

    try:
        if webdriver is None:
            raise SetupError("Selenium is not installed: pip install selenium")
        for path, package in ((options.chromium, "chromium"), (options.chromedriver, "chromium-driver")):
            if not os.access(path, os.X_OK):
                raise SetupError(f"{path} not found: apt-get install {package}")
        zeader = str(Path(options.zeader).resolve())
        if not os.access(zeader, os.X_OK):
            raise SetupError(f"{options.zeader} is not an executable (swift build --product zeader)")
        screenshots = Path(options.screenshots)
        screenshots.mkdir(parents=True, exist_ok=True)
        feeds = [Feed(path) for path in SAMPLE_FEEDS]
    except SetupError as error:
        print(f"browser test: {error}", file=sys.stderr)
        return 2

    test = BrowserTest(zeader, options.chromium, options.chromedriver, screenshots)
    postgres_url = os.environ.get("COHERENCE_POSTGRES_URL", "")
    scenarios = []
    if options.only in (None, "sqlite"):
        scenarios.append(functools.partial(first_run_scenario, test, feeds))
        scenarios.append(functools.partial(sqlite_scenario, test, feeds))
    if options.only in (None, "postgres") and postgres_url:
        scenarios.append(functools.partial(postgres_scenario, test, feeds, postgres_url))
    if options.only == "postgres" and not postgres_url:
        print("browser test: --only postgres needs COHERENCE_POSTGRES_URL", file=sys.stderr)
        return 2
    try:
        for scenario in scenarios:
            test.servers, test.cleanup = [], contextlib.ExitStack()
            with test.cleanup:  # browsers quit, then servers stop (then the schema goes)
                scenario()
        if not postgres_url and options.only is None:
            print("B PostgreSQL: skipped (COHERENCE_POSTGRES_URL is not set)")
    except CheckFailed as failure:
        print(failure.report(), file=sys.stderr)
        print(f"browser test: failed after {test.checks} checks passed", file=sys.stderr)
        return 1
    except SetupError as error:
        print(f"browser test: {error}", file=sys.stderr)
        return 2
    print(f"browser test: {test.checks} checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
