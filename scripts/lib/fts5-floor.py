#!/usr/bin/env python3
"""The search index's floor: FTS5 alone taking the texts a crawl kept, as mirror's index does.

    fts5-floor.py JOURNAL [RUNS=3]

Reads every page's text from a crawl's journal (`.mirror/journal.sqlite`, column `text` of table
`pages`: title, headings, names and body, each a LEB128 length and its UTF-8 bytes, as
`StoredText` writes them) and inserts them, in the byte order of their URLs, into a new FTS5 table made with the
settings of `SearchIndexBuilder` (same columns, tokenizer and options, one transaction, no
journal), through Python's sqlite3 on the system's libsqlite3. Prints the best CPU seconds of
RUNS, the pages and their bytes of text.
"""
import os
import sqlite3
import sys
import tempfile
import time


def strings(blob):
    """The length-prefixed strings of `blob`."""
    parts, position = [], 0
    while position < len(blob):
        length = shift = 0
        while True:
            byte = blob[position]
            position += 1
            length |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        parts.append(blob[position:position + length].decode("utf-8", "replace"))
        position += length
    return parts


def main():
    journal, runs = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3
    rows = sqlite3.connect(f"file:{journal}?mode=ro", uri=True).execute(
        "SELECT text FROM pages WHERE text IS NOT NULL ORDER BY url").fetchall()
    texts = [parts for (blob,) in rows if len(parts := strings(blob)) == 4]
    best = None
    with tempfile.TemporaryDirectory() as folder:
        for run in range(runs):
            start = time.process_time()
            database = sqlite3.connect(os.path.join(folder, f"{run}.sqlite"), isolation_level=None)
            database.executescript(
                "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA page_size = 2048;"
                "CREATE VIRTUAL TABLE words USING fts5(title, headings, names, body, content = '',"
                " tokenize = 'unicode61 remove_diacritics 2');")
            for option, value in [("automerge", 0), ("hashsize", 2 << 20), ("pgsz", 2000)]:
                database.execute(f"INSERT INTO words (words, rank) VALUES ('{option}', {value})")
            database.execute("BEGIN")
            for row, text in enumerate(texts, 1):
                database.execute("INSERT INTO words (rowid, title, headings, names, body) VALUES (?, ?, ?, ?, ?)", (row, *text))
            database.execute("COMMIT")
            database.close()
            elapsed = time.process_time() - start
            best = elapsed if best is None else min(best, elapsed)
    print(f"fts5 {best:.3f} pages {len(texts)} bytes {sum(len(part.encode()) for text in texts for part in text)}")


main()
