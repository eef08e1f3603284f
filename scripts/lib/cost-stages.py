"""A crawl's CPU by stage, from a profile: reads `perf script -F comm,tid,ip,sym,dso` (with call
chains) of one `mirror crawl`, gives each sample to the stage of its leaf-most frame that names
one (a malloc inside the link locator is the locator's; libxml2 calling back into the locator
is the locator's; SQLite is its caller's), and prints a Markdown table: CPU seconds, share and
microseconds per page for each stage. Stages are read from the functions' module and type names
(demangled with `swift demangle`); a sample no stage claims counts as "other", listed by its
leaf so that a new type shows up.

    python3 cost-stages.py [--detail N] PERF-SCRIPT-OUTPUT CPU-SECONDS PAGES [RESOURCES]

--detail N also lists, for each stage, its N leaf functions with the most samples.

CPU-SECONDS is the crawl's user + system time from a run without the profiler; the samples'
shares are applied to it.
"""
import collections
import re
import subprocess
import sys

# (stage, pattern over "function (library)"). The first pass takes the leaf-most frame matching
# any stage but the last; only a sample none of those claims goes to the last ("SQLite, caller
# unknown"), so that SQLite is counted with the part of mirror that called it.
STAGES = [
    ("hash (SHA-256)", r"sha256_block|SHA256|SHA2|\bCrypto\.|_CryptoExtras|libcrypto"),
    ("decoding (gzip, br)", r"ContentDecoder|inflate|CZlibShim|libz\.so|Brotli"),
    ("parse (libxml2)", r"libxml2\.so"),
    ("link location (SAX callbacks)", r"HTMLReferenceLocator|HTMLLinkExtractor|HTMLStartTag|CSSLinkExtractor|SrcsetParser"
     r"|MetaRefreshParser|HTMLSAXParser|HTMLDocumentScans|SessionEndReader|LogoutWords|MetaPrescan|CharsetSniffer"),
    ("text for the index", r"HTMLTextReader|CollapsedText|HTMLText\b|HTMLTitle|HTMLEscaping"),
    ("search index (FTS5)", r"MirrorSearch\.|SearchIndex"),
    ("resolving links", r"ScopeRules|URLParts|URLNormalizer|LinkReader\.resolved|HostPattern|URLPattern|PercentEncoding"),
    ("naming", r"PathMapper|PathRegistry|NameRenderer|FileTable|SiteNames|ComponentName|NameUnit|NameSlot|MediaTypeExtensions"),
    ("rewriting", r"LinkRewriter|FolderRewriter|LinkTargets"),
    ("writing the folder", r"AtomicFiles|ResponseSaver|SiteWriter|ManifestJSONWriter|SiteManifest|SiteLedger|UsedOriginals"
     r"|PosixFile|FolderFinisher"),
    ("journal", r"CrawlJournal|JournalLog|JournalLedger|PageRecords|StoredReferences|URLRecords|JournalRecord|PageLinks"),
    ("cache store", r"CacheStore|IndexWriter|EntryLog|BodyWriter|CacheIndex|ResponseBody|GrowingBody|PendingEntries"
     r"|CheckedBodies|IndexReader|MemoryTier"),
    ("cache policy", r"CachingClient|CachePolicy|CacheControl|SingleFlight|AdmissionRules|CacheRequest|StructuredDictionary"),
    ("frontier and item steps", r"Frontier|PageBudget|CrawlItem|RobotsGate|RobotsCache|RobotsRules|ItemProcessor|Crawler\b"
     r"|ReportRecorder|CrawlReport|RetryingFetcher|CrawlSession"),
    ("transport (async-http-client, NIO)", r"AsyncHTTPClient|HTTPClient|NIOCore\.|NIOPosix\.|NIOHTTP1\.|NIOSSL\.|_NIO\w*\."
     r"|\bNIO\w*\.|RequestSender|llhttp"),
    ("SQLite, caller unknown", r"libsqlite3"),
]
RULES = [(name, re.compile(pattern)) for name, pattern in STAGES]
START_UP = re.compile(r"execve|_dl_start|_dl_relocate|swift_addNewDSOImage|addImageDynamicReplacement")


def samples(path):
    """(comm, [(function, library)] leaf first) for each sample of the perf script output."""
    for block in open(path, errors="replace").read().split("\n\n"):
        lines = block.strip("\n").split("\n")
        if not lines or not lines[0].strip():
            continue
        frames = []
        for line in lines[1:]:
            match = re.match(r"\s*[0-9a-f]+ (.*) \((.*)\)$", line)
            if match:
                frames.append((match.group(1), match.group(2)))
        yield lines[0].split()[0], frames


def demangled(names):
    """Swift symbols demangled (simplified: no module names, no parameter types) and, for the
    stages to match, prefixed with the module of the entity, read from the mangled name."""
    names = sorted(n for n in names if n.startswith("$s"))
    output = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(names), capture_output=True,
                            text=True, check=True).stdout.split("\n")
    shown = dict(zip(names, output))
    matched = {}
    for name in names:
        module = re.match(r"\$s(\d+)", name)
        prefix = name[module.end():module.end() + int(module.group(1))] + "." if module else ""
        matched[name] = prefix + shown[name]
    return matched, shown


def stage_of(frames, names):
    for rules in (RULES[:-1], RULES[-1:]):
        for function, library in frames:
            text = names.get(function, function) + " (" + library + ")"
            for name, pattern in rules:
                if pattern.search(text):
                    return name
    if any(START_UP.search(names.get(f, f)) for f, _ in frames):
        return "start-up"
    return None


def main():
    arguments = sys.argv[1:]
    detail = 0
    if arguments[:1] == ["--detail"] and len(arguments) > 1:
        detail, arguments = int(arguments[1]), arguments[2:]
    if len(arguments) not in (3, 4) or int(arguments[2]) <= 0:
        sys.exit("usage: cost-stages.py [--detail N] PERF-SCRIPT-OUTPUT CPU-SECONDS PAGES [RESOURCES] (PAGES > 0)")
    path, cpu, pages = arguments[0], float(arguments[1]), int(arguments[2])
    resources = int(arguments[3]) if len(arguments) > 3 else None
    all_samples = list(samples(path))
    if not all_samples:
        sys.exit(f"cost-stages.py: no samples in {path}")
    functions = {f for _, frames in all_samples for f, _ in frames}
    names, shown = demangled(functions)
    counts = collections.Counter()
    unclaimed = collections.Counter()
    leaves = collections.defaultdict(collections.Counter)
    for _, frames in all_samples:
        stage = stage_of(frames, names)
        if frames:
            leaves[stage][(shown.get(frames[0][0], frames[0][0])[:90], frames[0][1].rsplit("/", 1)[-1])] += 1
        if stage is None:
            stage = "other (runtime, libc, kernel with no stage above)"
            leaf = next(((shown.get(f, f), l) for f, l in frames if "kernel" not in l), frames[0] if frames else ("?", "?"))
            unclaimed[(leaf[0][:70], leaf[1].rsplit("/", 1)[-1])] += 1
        counts[stage] += 1
    total = sum(counts.values())
    per = f"µs per page ({pages} pages" + (f", {resources} resources)" if resources else ")")
    print(f"| stage | CPU s | share | {per} |")
    print("| --- | ---: | ---: | ---: |")
    for stage, count in counts.most_common():
        share = count / total
        print(f"| {stage} | {share * cpu:.2f} | {100 * share:.1f} % | {share * cpu / pages * 1e6:,.0f} |")
    print(f"| **all** | **{cpu:.2f}** | 100 % | **{cpu / pages * 1e6:,.0f}** |")
    print(f"\n{total} samples. Unclaimed samples by their leaf function:")
    for (function, library), count in unclaimed.most_common(12):
        print(f"- {count} {function} ({library})")
    for stage, _ in counts.most_common() if detail else []:
        print(f"\n{stage}, by leaf function:")
        key = None if stage.startswith("other") else stage
        for (function, library), count in leaves[key].most_common(detail):
            print(f"- {count} {function} ({library})")


main()
