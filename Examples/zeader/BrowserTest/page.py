"""zeader's page as the browser test sees it.

- PAGE_STATE_SCRIPT reads the whole page (servers, items, title, status) in
  one script, and the functions below pick things out of that state and
  describe it for failure messages.
- Browser wraps one headless Chromium: loading, clicking and submitting. The
  page replaces rows when a Server-Sent Event arrives, so every find-and-click
  is retried when the element it found went stale before the click.

This is the module that talks to Selenium's element API; the checks and waits
are in harness.py.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Callable, TypeVar

try:
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # pragma: no cover - reported in browser_test.main()
    webdriver = None

WAIT_SECONDS = 20  # every DOM wait
STALE_ATTEMPTS = 5  # tries of one find-and-click while events replace the element

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

Result = TypeVar("Result")


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
        self._retrying_stale(lambda: self._server_row(title).find_element(By.CSS_SELECTOR, "a.name").click())
        WebDriverWait(self.driver, WAIT_SECONDS).until(expected_conditions.staleness_of(body))

    def click_item(self, element_id: str) -> None:
        self._retrying_stale(lambda: self.driver.find_element(By.ID, element_id)
                             .find_element(By.CSS_SELECTOR, "span.title").click())

    def click_mark_all(self, element_id: str) -> None:
        self._retrying_stale(lambda: self.driver.find_element(By.ID, element_id)
                             .find_element(By.CSS_SELECTOR, "button.mark-all").click())

    def submit_feed(self, address: str) -> None:
        def fill_and_submit() -> None:
            form = self.driver.find_element(By.ID, "add-feed")
            field = form.find_element(By.NAME, "url")
            field.clear()
            field.send_keys(address)
            form.find_element(By.TAG_NAME, "button").click()

        self._retrying_stale(fill_and_submit)

    def _retrying_stale(self, find_and_click: Callable[[], Result]) -> Result:
        """Runs `find_and_click`, again (up to STALE_ATTEMPTS times in all) when
        an event replaced the element between its find and its click: the
        next find gets the new element. Every step of `find_and_click` must be
        safe to repeat; a click that raised StaleElementReferenceException
        did not happen."""
        for attempt in range(1, STALE_ATTEMPTS + 1):
            try:
                return find_and_click()
            except StaleElementReferenceException:
                if attempt == STALE_ATTEMPTS:
                    raise
                print(f"  {self.name}: an element went stale before its click; finding it again")
        raise AssertionError("unreachable")

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
