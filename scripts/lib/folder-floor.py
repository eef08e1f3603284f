#!/usr/bin/env python3
"""The crawl folder's floor: the file system's work alone, as a crawl makes its folder.

    folder-floor.py FOLDER CACHE WORK

Reads a finished crawl's manifest (FOLDER/.mirror/manifest.json), journal (for the order the
crawl met its URLs) and cache (CACHE, its bodies) and, in a new folder under WORK, does the
folder's file operations again: each saved file a hard link to its cache body (each folder made
once), as a crawl saves them; then each HTML file rewritten as the finish does, with bytes of
the rewritten file's size: read, written to a new file without a name (`O_TMPFILE`) in its
folder, the file linked into a folder of originals, removed, and the new file named in its
place; then the manifest's bytes written to a new file in 1 MB writes. Nothing is deleted first
(a new inode skips those deleted in the last minutes). Prints the CPU seconds of each part.
"""
import ctypes
import json
import os
import sqlite3
import sys
import time

libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, AT_SYMLINK_FOLLOW = -100, 0x400


def name(descriptor, path):
    """Names the file without a name open as `descriptor` at `path`."""
    if libc.linkat(AT_FDCWD, f"/proc/self/fd/{descriptor}".encode(), AT_FDCWD, path.encode(), AT_SYMLINK_FOLLOW) != 0:
        raise OSError(ctypes.get_errno(), path)


def main():
    folder, cache, work = sys.argv[1:4]
    manifest = json.load(open(os.path.join(folder, ".mirror/manifest.json")))["resources"]
    journal = sqlite3.connect(os.path.join(folder, ".mirror/journal.sqlite"))
    order = [url for (url,) in journal.execute("SELECT url FROM urls ORDER BY seq") if url in manifest]
    target = os.path.join(work, "folder-floor")
    originals = os.path.join(target, ".mirror/originals")
    os.makedirs(originals)
    made, saved = set(), {}

    start = time.process_time()
    for url in order:
        resource = manifest[url]
        path = os.path.join(target, resource["path"])
        if path in saved:
            continue
        saved[path] = resource
        parent = os.path.dirname(path)
        if parent not in made:
            os.makedirs(parent, exist_ok=True)
            made.add(parent)
        digest = resource["sha256"]
        os.link(os.path.join(cache, "bodies", digest[:2], digest), path)
    links = time.process_time() - start

    start = time.process_time()
    pages = 0
    for path, resource in sorted(saved.items()):
        if "file" not in resource:
            continue
        pages += 1
        descriptor = os.open(path, os.O_RDONLY)
        os.read(descriptor, resource["size"] + 1)
        os.close(descriptor)
        rewritten = os.open(os.path.dirname(path), os.O_TMPFILE | os.O_WRONLY, 0o644)
        os.write(rewritten, bytes(resource["file"]["size"]))
        os.link(path, os.path.join(originals, resource["sha256"]))
        os.unlink(path)
        name(rewritten, path)
        os.close(rewritten)
    rewrite = time.process_time() - start

    data = open(os.path.join(folder, ".mirror/manifest.json"), "rb").read()
    start = time.process_time()
    with open(os.path.join(target, ".mirror/manifest.json"), "wb") as manifest_file:
        for first in range(0, len(data), 1 << 20):
            manifest_file.write(data[first:first + (1 << 20)])
    written = time.process_time() - start
    print(f"links {links:.3f} rewrite {rewrite:.3f} manifest {written:.3f} files {len(saved)} pages {pages}")


main()
