#!/usr/bin/env python3
"""The crawl journal's floor: SQLite alone writing and reading back the rows a crawl kept.

    journal-floor.py JOURNAL [RUNS=3]

Reads a finished crawl's journal (`.mirror/journal.sqlite`) and, through Python's sqlite3 on the
system's libsqlite3, does its SQLite work again in a new journal of the same tables and settings
(WAL, `synchronous=NORMAL`, checkpoints every 16,000 pages), committing every 4,096 records as
`JournalLog` does: for each URL in the order the crawl met it, the URLs it discovered queued, its
saved resource, its page row (links, references, text) and its state; then the finish's work:
the resources read in slices of 2,048 in URL order, each slice's pages' references read eight to
a range of URLs and each resource saved again as rewritten (40 bytes longer); then the resources
read twice more (the manifest, the index's titles) and once with the pages' texts, 32 to a
range (the index). Prints the best CPU seconds of RUNS: the writes while fetching, the rewrite's
reads and writes, the other passes' reads.
"""
import os
import sqlite3
import sys
import tempfile
import time

SCHEMA = """
CREATE TABLE urls (seq INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, depth INTEGER NOT NULL, role TEXT NOT NULL,
  hops INTEGER NOT NULL, referrer TEXT, state TEXT NOT NULL, status INTEGER, detail TEXT);
CREATE TABLE resources (url TEXT PRIMARY KEY, json BLOB NOT NULL);
CREATE TABLE pages (url TEXT PRIMARY KEY, key TEXT NOT NULL, links BLOB NOT NULL, refs BLOB NOT NULL, text BLOB);
"""


def crawl_rows(path):
    """The crawl's URLs in the order it met them, its resources and pages by URL, and the URLs
    each URL discovered."""
    source = sqlite3.connect(path)
    urls = source.execute("SELECT url, depth, role, hops, referrer, state, status, detail FROM urls ORDER BY seq").fetchall()
    pages = {row[0]: row for row in source.execute("SELECT url, key, links, refs, text FROM pages")}
    resources = dict(source.execute("SELECT url, json FROM resources"))
    discovered = {}
    for row in urls[1:]:
        discovered.setdefault(row[4], []).append(row[:5])
    return urls, pages, resources, discovered


def one_run(path, urls, pages, resources, discovered):
    database = sqlite3.connect(path, isolation_level=None)
    database.execute("PRAGMA journal_mode=WAL")
    database.execute("PRAGMA synchronous=NORMAL")
    database.execute("PRAGMA wal_autocheckpoint=16000")
    database.executescript(SCHEMA)
    pending = 0

    def record():
        nonlocal pending
        pending += 1
        if pending >= 4096:
            database.execute("COMMIT")
            database.execute("BEGIN")
            pending = 0

    def slices():
        after = ""
        while rows := database.execute(
                "SELECT url, json FROM resources WHERE url > ? ORDER BY url LIMIT 2048", (after,)).fetchall():
            after = rows[-1][0]
            yield rows

    start = time.process_time()
    database.execute("BEGIN")
    database.execute("INSERT INTO urls (url, depth, role, hops, referrer, state) VALUES (?, ?, ?, ?, ?, 'queued')", urls[0][:5])
    for url, depth, role, hops, referrer, state, status, detail in urls:
        database.executemany(
            "INSERT OR IGNORE INTO urls (url, depth, role, hops, referrer, state) VALUES (?, ?, ?, ?, ?, 'queued')",
            discovered.get(url, []))
        record()
        if url in resources:
            database.execute("INSERT OR REPLACE INTO resources (url, json) VALUES (?, ?)", (url, resources[url]))
            record()
        if url in pages:
            database.execute("INSERT OR REPLACE INTO pages (url, key, links, refs, text) VALUES (?, ?, ?, ?, ?)", pages[url])
            record()
        database.execute("UPDATE urls SET state = ?, status = ?, detail = ? WHERE url = ?", (state, status, detail, url))
        record()
    database.execute("COMMIT")
    fetching = time.process_time() - start

    start = time.process_time()
    database.execute("BEGIN")
    pending = 0
    for rows in slices():
        for first in range(0, len(rows), 8):
            run = rows[first:first + 8]
            database.execute("SELECT url, key, refs FROM pages WHERE url BETWEEN ? AND ?", (run[0][0], run[-1][0])).fetchall()
        for url, stored in rows:
            database.execute("INSERT OR REPLACE INTO resources (url, json) VALUES (?, ?)", (url, stored + bytes(40)))
            record()
    database.execute("COMMIT")
    rewrite = time.process_time() - start

    start = time.process_time()
    for _ in range(2):
        for _ in slices():
            pass
    for rows in slices():
        for first in range(0, len(rows), 32):
            run = rows[first:first + 32]
            database.execute("SELECT url, key, text FROM pages WHERE url BETWEEN ? AND ?", (run[0][0], run[-1][0])).fetchall()
    passes = time.process_time() - start
    database.close()
    return fetching, rewrite, passes


def main():
    journal = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    rows = crawl_rows(journal)
    best = None
    with tempfile.TemporaryDirectory() as folder:
        for run in range(runs):
            times = one_run(os.path.join(folder, f"{run}.sqlite"), *rows)
            best = times if best is None or sum(times) < sum(best) else best
    print(f"fetching {best[0]:.3f} rewrite {best[1]:.3f} passes {best[2]:.3f} urls {len(rows[0])}")


main()
