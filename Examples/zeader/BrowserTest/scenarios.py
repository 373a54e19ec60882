"""The browser test's scenarios and the checks they share.

- first_run_scenario (F): README's first command, `zeader` alone, on an empty
  store directory.
- sqlite_scenario (A): two windows on one `zeader serve` over SQLite; clicks,
  `zeader read` and `zeader import` in other processes, the add-feed form and
  "Mark all read" all show up live in both windows.
- postgres_scenario (B): two `zeader serve` processes on one PostgreSQL
  schema, a window on each; what one process changes reaches the other.

Every check waits for the DOM state it expects (harness.BrowserTest.wait);
nothing sleeps a fixed time.
"""

from __future__ import annotations

import datetime
import os
import secrets
import shutil
import tempfile
from pathlib import Path

from feeds import FIXTURES, Feed
from harness import BrowserTest
from page import (Browser, count_of, count_titled, describe, first_unread, item_with_id, selected_server,
                  server_list, server_titled, server_with_id, title_total)
from zeader_processes import drop_schema, feed_http_server


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
