#!/usr/bin/env python3
"""Writes the Debian package's /usr/share/doc/mirror/copyright in the machine-readable format
(https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/) from THIRD-PARTY-NOTICES.md,
which scripts/notices generates and scripts/test keeps current, so that both say the same.

One Files paragraph for mirror itself (Apache-2.0, with NOTICE), one per Swift package of
Package.resolved (its checkout's path after `swift package resolve`), one per piece of code
vendored inside a package under a licence of its own (BoringSSL, llhttp, …), one per part of the
Swift toolchain that --static-swift-stdlib links in. Copyright lines come from the notices and
from the headers of each checkout's sources (--checkouts); each package's NOTICE file is
reproduced in its paragraph's Comment, as the Apache License's section 4(d) asks. The Apache
License 2.0 is referred to in /usr/share/common-licenses (after checking that the notices'
text is that one); every other licence text is reproduced in full.

A licence this script cannot name stops it with an error rather than writing a wrong file.
  debian-copyright.py --notices THIRD-PARTY-NOTICES.md --notice NOTICE --checkouts DIR > copyright
"""
import argparse
import os
import re
import sys
import textwrap
from collections import defaultdict

parser = argparse.ArgumentParser()
parser.add_argument("--notices", required=True)
parser.add_argument("--notice", required=True, help="the project's NOTICE file")
parser.add_argument("--checkouts", required=True, help="the packages' checkouts (.build*/checkouts)")
parser.add_argument("--common-licenses", default="/usr/share/common-licenses")
args = parser.parse_args()


def fail(message):
    sys.exit(f"debian-copyright: {message}")


def squash(text):
    return " ".join(text.split())


# ---------------------------------------------------------------------------------------------
# THIRD-PARTY-NOTICES.md as parts (## …) of sections (### …), each with its lines and text blocks.

with open(args.notices, encoding="utf-8") as f:
    notices_lines = f.read().split("\n")

parts = defaultdict(list)  # part title -> [section]
part = None
section = None
in_block = False
for line in notices_lines:
    if in_block:
        if line == "```":
            in_block = False
        else:
            section["blocks"][-1]["text"].append(line)
        continue
    if line.startswith("## "):
        part, section = line[3:].strip(), None
        continue
    if line.startswith("### ") and part:
        section = {"title": line[4:].strip(), "lines": [], "blocks": []}
        parts[part].append(section)
        continue
    if section is None:
        continue
    if line.startswith("```"):
        in_block = True
        before = [l for l in section["lines"] if l.strip()]
        section["blocks"].append({"intro": before[-1] if before else "", "text": []})
        continue
    section["lines"].append(line)

for name in ("Swift packages", "Code vendored inside those packages", "The Swift runtime, Foundation and libdispatch", "Licence texts"):
    if name not in parts:
        fail(f"{args.notices} has no part '## {name}': has scripts/notices changed its layout?")

texts = {}  # "Text N" -> (name, text)
for s in parts["Licence texts"]:
    m = re.match(r"(Text \d+): (.*)", s["title"])
    if not m or len(s["blocks"]) != 1:
        fail(f"cannot read the licence text '{s['title']}'")
    texts[m.group(1)] = (m.group(2), "\n".join(s["blocks"][0]["text"]))


def common_licence(name):
    path = os.path.join(args.common_licenses, name)
    with open(path, encoding="utf-8") as f:
        return f.read()


APACHE = "Apache-2.0"
APACHE_SWIFT = "Apache-2.0 with Swift exception"
apache_text = common_licence("Apache-2.0")
licence_paragraphs = {}  # short name -> text of its standalone License paragraph


def apache_based(name, text):
    """The short name of an Apache-2.0 text (plain, or with Swift's Runtime Library Exception)."""
    if name == "Apache License 2.0":
        if squash(text) != squash(apache_text):
            fail(f"the notices' '{name}' is not /usr/share/common-licenses/Apache-2.0")
        licence_paragraphs[APACHE] = (
            "On Debian systems, the full text of the Apache License, Version 2.0, is in\n"
            "/usr/share/common-licenses/Apache-2.0."
        )
        return APACHE
    if name == "Apache License 2.0 with the Runtime Library Exception":
        head, sep, exception = text.partition("## Runtime Library Exception to the Apache 2.0 License: ##")
        if not sep or squash(head) != squash(apache_text):
            fail(f"the notices' '{name}' is not the Apache License 2.0 followed by the Runtime Library Exception")
        licence_paragraphs[APACHE_SWIFT] = (
            "The Apache License, Version 2.0 (on Debian systems, in\n"
            "/usr/share/common-licenses/Apache-2.0), with this exception (the Swift project's\n"
            "Runtime Library Exception, SPDX Swift-exception):\n\n"
            "Runtime Library Exception to the Apache 2.0 License:\n\n" + "\n".join(l.strip() for l in exception.strip().split("\n"))
        )
        return APACHE_SWIFT
    return None


def licence_of(name, text):
    """(short name, full text or None): None when a standalone License paragraph holds the text."""
    short = apache_based(name, text)
    if short:
        return short, None
    if name.startswith("MIT License"):
        return "Expat", text
    if name.startswith("BSD 3-Clause"):
        return "BSD-3-clause", text
    if name.startswith("CC0 1.0"):
        return "CC0-1.0", text
    if name.startswith("zlib License"):
        return "Zlib", text
    if name.startswith("Unicode License v3"):
        return "Unicode-3.0", text
    fail(f"no Debian short name for the licence '{name}': teach scripts/lib/debian-copyright.py")


# ---------------------------------------------------------------------------------------------
# Copyright lines

COPYRIGHT = re.compile(
    r"^(?:\s*(?://+|#+|\*+|/\*+|;+|--)?\s*)(?:Copyright|©)\s*(?:\(c\)|©)?\s*:?\s*(.*?)\s*(?:\*/)?\s*$", re.I
)
YEARS = re.compile(r"^((?:\d{4}(?:\s*[-–,]\s*(?:and\s+)?|\s+and\s+|\s+(?=\d))?)+)\s*,?\s*(.*)$")


def holders_from(lines, holders):
    for line in lines:
        m = COPYRIGHT.match(line)
        if not m or not m.group(1):
            continue
        rest = m.group(1).strip()
        if rest.lower().startswith(("notice", "holder", "owner", "[yyyy]", "license", "and ", "(c)", "©", "years", "<")):
            continue
        years = ""
        ym = YEARS.match(rest)
        if ym:
            years, rest = ym.group(1), ym.group(2)
        rest = rest.strip()
        if not rest or len(rest) > 120 or not re.search(r"[A-Za-z]", rest):
            continue
        found = [int(y) for y in re.findall(r"\d{4}", years)]
        holders[rest].extend(found)


def copyright_field(holders):
    lines = []
    for holder in sorted(holders, key=str.lower):
        years = holders[holder]
        span = "" if not years else (f"{min(years)}" if min(years) == max(years) else f"{min(years)}-{max(years)}")
        lines.append(f"{span} {holder}".strip())
    return "\n".join(lines)


def scan_checkout(root, excluded):
    """Copyright holders named in the first lines of a checkout's source files."""
    holders = defaultdict(list)
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        dirs[:] = sorted(
            d for d in dirs
            if not d.startswith(".") and d not in ("Tests", "Benchmarks", "IntegrationTests", "dev", "docs", "Snippets")
            and os.path.normpath(os.path.join(rel, d)) not in excluded
        )
        for name in sorted(files):
            path = os.path.normpath(os.path.join(rel, name))
            if path in excluded or not name.endswith((".swift", ".c", ".h", ".cc", ".cpp", ".S", ".inc")):
                continue
            try:
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                    head = [next(f, "") for _ in range(30)]
            except OSError:
                continue
            holders_from(head, holders)
    return holders


# ---------------------------------------------------------------------------------------------
# Paragraphs

def plain(text):
    """Markdown links as text: [name](#anchor) -> name, [name](url) -> name (url)."""
    text = re.sub(r"\[(?:Text \d+: )?([^\]]+)\]\(#[^)]*\)", r"\1", text)
    return re.sub(r"\[([^\]]+)\]\((http[^)]*)\)", r"\1 (\2)", text)


def field(name, value):
    """A deb822 field; continuation lines indented, blank ones as ' .'."""
    lines = value.rstrip("\n").split("\n")
    out = [f"{name}: {lines[0]}".rstrip()]
    for line in lines[1:]:
        out.append(" ." if not line.strip() else " " + line.rstrip())
    return "\n".join(out)


def files_paragraph(files, copyright, licence, licence_text=None, comment=None):
    out = [field("Files", "\n".join(files)), field("Copyright", copyright)]
    out.append(field("License", licence + ("\n" + licence_text if licence_text else "")))
    if comment:
        out.append(field("Comment", plain(comment)))
    return "\n".join(out)


paragraphs = []
with open(args.notice, encoding="utf-8") as f:
    project_notice = f.read().strip()
paragraphs.append(
    "\n".join([
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/",
        "Upstream-Name: mirror",
        field(
            "Comment",
            "This package was built from mirror's source with `scripts/package`. Its binary,\n"
            "/usr/bin/mirror, statically contains the Swift packages pinned in Package.resolved, the code\n"
            "vendored inside them and the Swift runtime and Foundation, listed below (paths as in a\n"
            "checkout after `swift package resolve`; `swift-toolchain/` is the Swift toolchain's folder).\n"
            "It loads libxml2, zlib, SQLite, glibc, libstdc++ and libgcc_s from their own Debian packages,\n"
            "whose copyright files cover them. THIRD-PARTY-NOTICES.md in the source, from which this file\n"
            "is made, has the same notices.",
        ),
    ])
)
paragraphs.append(files_paragraph(["*"], "2026 the mirror developers", APACHE, comment="The NOTICE file:\n\n" + project_notice))

# Folders of vendored code, excluded from their package's scan and given paragraphs of their own.
vendored = defaultdict(set)  # package -> {path}
for s in parts["Code vendored inside those packages"]:
    body = "\n".join(s["lines"])
    for m in re.finditer(r"In ([\w.-]+): `([^`]+)`", body):
        vendored[m.group(1)].add(os.path.normpath(m.group(2)))
    for m in re.finditer(r"`([^`]+)` in ([\w.-]+)", body):
        vendored[m.group(2)].add(os.path.normpath(m.group(1)))
    m = re.match(r"([\w.-]+): (\S+)$", s["title"])
    if m:
        vendored[m.group(1)].add(os.path.normpath(m.group(2)))


def text_refs(line):
    return re.findall(r"\[(Text \d+): ([^\]]+)\]", line)


def bullet(section, key):
    for line in section["lines"]:
        if line.startswith(f"- {key}:"):
            return line[len(key) + 3:].strip()
    return None


# The Swift packages.
for s in parts["Swift packages"]:
    m = re.match(r"(\S+) (\S+)$", s["title"])
    if not m:
        fail(f"cannot read the package heading '{s['title']}'")
    name, version = m.groups()
    identity = bullet(s, "Package identity")
    folder = identity.strip("`") if identity else name
    checkout = next(
        (os.path.join(args.checkouts, d) for d in (name, folder) if os.path.isdir(os.path.join(args.checkouts, d))), None
    )
    if checkout is None:
        fail(f"no checkout of {name} in {args.checkouts}: run `swift package resolve` first")
    licence_line = bullet(s, "Licence") or ""
    refs = text_refs(licence_line)
    if not refs:
        fail(f"{name}: no licence text named in '{licence_line}'")
    holders = scan_checkout(checkout, vendored.get(name, set()))
    notice_blocks = [b for b in s["blocks"] if "NOTICE" in b["intro"]]
    for ref, _ in refs:
        if not texts[ref][0].startswith("Apache"):  # the Apache texts name no holder, only a template
            holders_from(texts[ref][1].split("\n"), holders)
    for b in notice_blocks:
        holders_from(b["text"], holders)
    if not holders:
        holders[f"the {name} authors"] = []
    licences = []
    licence_texts = []
    for ref, _ in refs:
        short, full = licence_of(*texts[ref])
        licences.append(short)
        if full:
            licence_texts.append(full)
    comment = [f"Version {version}, from {bullet(s, 'Repository')} (revision {(bullet(s, 'Revision') or '').strip('`')})."]
    for b in notice_blocks:
        comment.append(f"{b['intro'].rstrip(':')}:\n\n" + "\n".join(b["text"]).strip())
    paragraphs.append(
        files_paragraph(
            [f".build/checkouts/{os.path.basename(checkout)}/*"],
            copyright_field(holders),
            " and ".join(licences),
            "\n\n".join(licence_texts) or None,
            "\n\n".join(comment),
        )
    )

# Code vendored inside those packages.
for s in parts["Code vendored inside those packages"]:
    body = "\n".join(s["lines"])
    titled = re.match(r"([\w.-]+): (\S+)$", s["title"])
    if titled:
        # "swift-nio: Sources/CNIOLLHTTP": a folder (all of it) or a file of a package.
        package, path = titled.groups()
        whole = os.path.isdir(os.path.join(args.checkouts, package, path))
        files = [f".build/checkouts/{package}/{path}" + ("/*" if whole else "")]
    else:
        files = sorted({f".build/checkouts/{m.group(1)}/{m.group(2)}/*" for m in re.finditer(r"In ([\w.-]+): `([^`]+)`", body)})
    if not files:
        fail(f"no files named in the vendored section '{s['title']}'")
    holders = defaultdict(list)
    refs = text_refs(body)
    if refs and not s["blocks"] or (refs and all("copyright notices" in b["intro"] for b in s["blocks"])):
        # A licence among the texts (BoringSSL: Apache-2.0, its copyright lines in a block).
        short, full = licence_of(*texts[refs[0][0]])
        for b in s["blocks"]:
            holders_from(b["text"], holders)
        comment = "\n".join(l[2:] if l.startswith("- ") else l.strip() for l in s["lines"] if l.strip() and not l.startswith("The copyright notices"))
        paragraphs.append(files_paragraph(files, copyright_field(holders) or f"the {s['title']} authors", short, full,
                                          f"{s['title']}.\n{comment}"))
        continue
    if len(s["blocks"]) != 1:
        fail(f"cannot read the vendored section '{s['title']}'")
    intro = s["blocks"][0]["intro"] if s["blocks"][0]["intro"].endswith(":") and " text" in s["blocks"][0]["intro"] else \
        next((l for l in s["lines"] if " text, in the comments" in l), "")
    kind = intro.split(" text")[0]
    text = "\n".join(s["blocks"][0]["text"])
    short, full = licence_of(kind, text)
    holders_from(s["blocks"][0]["text"], holders)
    copyright = copyright_field(holders) or "none: the authors waived copyright (see the licence below)"
    paragraphs.append(files_paragraph(files, copyright, short, full, f"{s['title']}: the licence is written in these files' comments."))

# zlib vendored inside a package (swift-nio-extras' CNIOExtrasZlib, under prefixed names) that
# the notices do not list: its licence is in its zlib.h, which this copies from.
notices_text = "\n".join(notices_lines)
for checkout in sorted(os.listdir(args.checkouts)):
    sources = os.path.join(args.checkouts, checkout, "Sources")
    for folder, dirs, files in os.walk(sources):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith("zlib.h"):
                continue
            with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                head = f.read(4000)
            m = re.match(r"/\* zlib\.h -- .*?\n\s*version (\S+).*?\n\s*(Copyright \(C\) [^\n]+)\n(.*?)\*/", head, re.S)
            if not m:
                continue
            target = os.path.relpath(folder, os.path.join(args.checkouts, checkout))
            if target.endswith("/include"):
                target = os.path.dirname(target)
            if f"{checkout}: {target}" in notices_text or f"`{target}`" in notices_text:
                continue
            print(f"debian-copyright: note: {checkout}/{target} (zlib {m.group(1).rstrip(',')}) is not in "
                  f"{os.path.basename(args.notices)}; the copyright file covers it", file=sys.stderr)
            holders = defaultdict(list)
            holders_from([m.group(2)], holders)
            text = textwrap.dedent(m.group(3)).strip()
            text = text.split("The data format used by the zlib library")[0].strip()
            paragraphs.append(files_paragraph(
                [f".build/checkouts/{checkout}/{target}/*"], copyright_field(holders), "Zlib", text,
                f"zlib {m.group(1).rstrip(',')}, vendored in {checkout} under prefixed names.",
            ))

# The Swift toolchain's libraries that --static-swift-stdlib links in.
TOOLCHAIN_FILES = {
    "The Swift standard library and runtime": ["libswift*.a"],
    "Foundation": ["libFoundation*.a", "libCoreFoundation.a", "lib_FoundationCollections.a", "lib_FoundationCShims.a"],
    "ICU (swift-foundation-icu)": ["lib_FoundationICU.a"],
    "libdispatch": ["libdispatch.a", "libBlocksRuntime.a"],
}
for s in parts["The Swift runtime, Foundation and libdispatch"]:
    if s["title"] not in TOOLCHAIN_FILES:
        fail(f"no toolchain files known for '{s['title']}': teach scripts/lib/debian-copyright.py")
    files = [f"swift-toolchain/usr/lib/swift_static/linux/{p}" for p in dict.fromkeys(TOOLCHAIN_FILES[s["title"]])]
    body = "\n".join(s["lines"])
    comment = "\n".join(l[2:] if l.startswith("- ") else l.strip() for l in s["lines"] if l.strip())
    refs = []
    for ref, _ in text_refs(body):
        if ref not in refs:
            refs.append(ref)
    if not refs:
        fail(f"no licence found for '{s['title']}'")
    licences = [licence_of(*texts[r]) for r in refs]
    if len(licences) == 1 and licences[0][1] is not None:      # a text of its own, such as ICU's
        short, full = licences[0]
        paragraphs.append(files_paragraph(files, "2016 and later Unicode, Inc. and others" if short == "Unicode-3.0"
                                          else "the copyright holders named in the licence", short, full,
                                          f"{s['title']}.\n{comment}"))
    else:
        paragraphs.append(files_paragraph(files, "Apple Inc. and the Swift project authors",
                                          " and ".join(short for short, _ in licences), None, f"{s['title']}.\n{comment}"))

for short in sorted(licence_paragraphs):
    paragraphs.append(field("License", short + "\n" + licence_paragraphs[short]))

sys.stdout.write("\n\n".join(paragraphs) + "\n")
