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

This file is the entry point (arguments, the scenarios' order, the exit
status); the rest, imported from this script's directory:

    scenarios.py         the scenarios and the checks they share
    harness.py           BrowserTest: steps, checks, waits, cleanup
    page.py              the page's state and the Browser wrapper
    zeader_processes.py  `zeader serve`, the local feed server, psql
    feeds.py             the feed files and what they hold
    failures.py          CheckFailed and SetupError
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
from pathlib import Path

try:
    from selenium.common.exceptions import WebDriverException
except ImportError:  # pragma: no cover - reported in main()
    pass

import page
from failures import CheckFailed, SetupError
from feeds import REPOSITORY, SAMPLE_FEEDS, Feed
from harness import BrowserTest
from scenarios import first_run_scenario, postgres_scenario, sqlite_scenario


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
        if page.webdriver is None:
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
                try:
                    scenario()
                except WebDriverException as error:
                    # Outside any check (a check's own waits handle these):
                    # reported like a failed check, before the servers stop.
                    raise test.driver_failure(error) from error
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
