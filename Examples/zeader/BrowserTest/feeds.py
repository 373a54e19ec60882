"""The feed files the browser test imports, and what it expects of them.

The sample feeds are zeader's own (Examples/zeader/Feeds); the fixtures
(late-breaking.xml, from-the-web.xml) come from zeader's unit tests. A Feed's
title and item titles are read with ElementTree, independently of zeader's
parser, so that the page is checked against the files themselves.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from failures import SetupError

REPOSITORY = Path(__file__).resolve().parents[3]
EXAMPLE = REPOSITORY / "Examples" / "zeader"
FEEDS = EXAMPLE / "Feeds"
FIXTURES = EXAMPLE / "Tests" / "ZeaderTests" / "Fixtures"
SAMPLE_FEEDS = [FEEDS / "coherence-blog.xml", FEEDS / "queue-and-merge.xml", FEEDS / "swift-server-notes.xml"]


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
