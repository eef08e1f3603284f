#!/usr/bin/env python3
"""Writes a site of N small linked HTML pages for the crawl benchmarks.

Page i links to its children 5i+1 … 5i+5 (a tree of fan-out 5, so every page is reachable from
index.html), to its parent and to 3 pseudo-random other pages (cross links), and uses one shared
stylesheet and one shared image.  Pages live in folders of 1,000 (p/<i // 1000>/<i>.html).
    scripts/gen-site.py DIR N
"""
import os
import random
import sys

root, count = sys.argv[1], int(sys.argv[2])
rng = random.Random(15)


def path(i):
    return "/index.html" if i == 0 else f"/p/{i // 1000}/{i}.html"


os.makedirs(f"{root}/static", exist_ok=True)
with open(f"{root}/static/site.css", "w") as css:
    css.write("body { font: 16px sans-serif; background: url(bg.png); }\nul { margin: 0 }\n")
with open(f"{root}/static/bg.png", "wb") as png:
    png.write(bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                            "1f15c4890000000d49444154789c6360606060000000050001a5f645400000000049454e44ae426082"))
for i in range(count):
    links = [c for c in range(5 * i + 1, 5 * i + 6) if c < count]
    links += [(i - 1) // 5] if i else []
    links += [rng.randrange(count) for _ in range(3)]
    items = "".join(f'<li><a href="{path(j)}">Page {j}</a></li>\n' for j in links)
    html = (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Page {i}</title>\n"
            f'<link rel="stylesheet" href="/static/site.css"></head>\n'
            f'<body><h1>Page {i}</h1><img src="/static/bg.png" alt="">\n'
            f"<p>Generated page {i} of {count}, for the crawl benchmark.</p>\n<ul>\n{items}</ul></body></html>\n")
    file = root + path(i)
    if i % 1000 == 0 or i == 1:
        os.makedirs(os.path.dirname(file), exist_ok=True)
    with open(file, "w") as out:
        out.write(html)
