#!/usr/bin/env python3
"""The search index's texts kept by the crawl journal, alone: SQLite writing and reading them back.

    journal-text-floor.py JOURNAL [RUNS=3]

Reads every page's text from a crawl's journal (`.mirror/journal.sqlite`, table `pages`: its URL,
key and text, as `PageRecords` keeps them beside the page's links and references) and, through
Python's sqlite3 on the system's libsqlite3, writes them into a table of their own in a new
journal of the same settings (WAL, `synchronous=NORMAL`, checkpoints every 16,000 pages) in the
order the crawl met them (shuffled with a fixed seed: not URL order), 32 to a transaction (a
bound from above: the journal commits its records in larger groups, `JournalLog`),
then reads them back 32 at a time by a range of URLs, as the index does at the finish. Prints the
best CPU seconds of RUNS for the writing and the reading, the pages and their bytes.
"""
import os
import random
import sqlite3
import sys
import tempfile
import time


def main():
    journal, runs = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3
    rows = sqlite3.connect(f"file:{journal}?mode=ro", uri=True).execute(
        "SELECT url, key, text FROM pages WHERE text IS NOT NULL").fetchall()
    random.Random(51).shuffle(rows)
    urls = sorted(row[0] for row in rows)
    best_write = best_read = None
    with tempfile.TemporaryDirectory() as folder:
        for run in range(runs):
            path = os.path.join(folder, f"{run}.sqlite")
            start = time.process_time()
            database = sqlite3.connect(path, isolation_level=None)
            database.execute("PRAGMA journal_mode=WAL")
            database.execute("PRAGMA synchronous=NORMAL")
            database.execute("PRAGMA wal_autocheckpoint=16000")
            database.execute("CREATE TABLE texts (url TEXT PRIMARY KEY, key TEXT NOT NULL, text BLOB NOT NULL)")
            for first in range(0, len(rows), 32):
                database.execute("BEGIN")
                database.executemany("INSERT OR REPLACE INTO texts (url, key, text) VALUES (?, ?, ?)", rows[first:first + 32])
                database.execute("COMMIT")
            database.close()
            written = time.process_time() - start
            start = time.process_time()
            database = sqlite3.connect(path, isolation_level=None)
            read = 0
            for first in range(0, len(urls), 32):
                group = urls[first:first + 32]
                for _, _, text in database.execute("SELECT url, key, text FROM texts WHERE url BETWEEN ? AND ?", (group[0], group[-1])):
                    read += len(text)
            database.close()
            reading = time.process_time() - start
            best_write = written if best_write is None else min(best_write, written)
            best_read = reading if best_read is None else min(best_read, reading)
    print(f"write {best_write:.3f} read {best_read:.3f} pages {len(rows)} bytes {read}")


main()
