"""The Python half of scripts/browser-apps.sh: makes the sites, lists a crawl's pages, compares
screenshots and drives one interaction per app over Chromium's DevTools protocol.

  browser-apps.py material DIR ORIGIN       a Material for MkDocs project, built into DIR/site
  browser-apps.py openapi DIR KIND DIST     Swagger UI or ReDoc (KIND) over a local OpenAPI file
  browser-apps.py sphinx DIR                a small Sphinx project (sphinx-book-theme), built
  browser-apps.py javadoc DIR               a small library documented by javadoc, built
  browser-apps.py pages OUT                 "URL<TAB>file://…" for each HTML page a crawl saved
  browser-apps.py compare OFF DIFF LIVE..   "identical", or the share of pixels that differ
  browser-apps.py interact APP URL [ARG..]  "pass DETAIL" or "fail DETAIL" (Chromium ARGs)

Runs in the script's virtual environment (mkdocs-material, drf-spectacular-sidecar,
sphinx-book-theme, pillow, websocket-client)."""

import atexit
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

# --- The sites ---------------------------------------------------------------------------

MATERIAL_YML = """\
site_name: Lighthouse
site_url: {origin}/
theme:
  name: material
  features: [navigation.instant, navigation.tabs, navigation.sections, content.tabs.link, search.suggest]
plugins: [search]
markdown_extensions:
  - admonition
  - toc: {{permalink: true}}
  - pymdownx.superfences
  - pymdownx.tabbed: {{alternate_style: true}}
  - pymdownx.highlight
nav:
  - Home: index.md
  - Guide:
      - Installing: guide/install.md
      - Configuring: guide/configure.md
  - Reference:
      - Commands: reference/commands.md
      - Settings: reference/settings.md
  - About: about.md
"""

TABS = """
=== "Debian"

    ```sh
    sudo apt-get install lighthouse
    ```

=== "macOS"

    ```sh
    brew install lighthouse
    ```

=== "From source"

    ```sh
    make && sudo make install
    ```
"""

PARAGRAPH = ("The keeper trims the wick, winds the clockwork and logs the weather every four hours; "
             "a lamp that goes out is relit within the minute, and the log says why. ")


def long_page():
    """A page several windows long, so that Material's header shows the section on scroll."""
    parts = ["# Configuring\n", PARAGRAPH * 2]
    for section in ["The lamp", "The clockwork", "The fog signal", "The log", "Visitors"]:
        parts.append(f"\n## {section}\n\n" + PARAGRAPH * 3)
        for sub in ["Daily", "Weekly", "In a storm"]:
            parts.append(f"\n### {section}: {sub.lower()}\n\n" + PARAGRAPH * 2)
        if section == "The clockwork":
            parts.append(TABS)
    return "\n".join(parts) + "\n"


def material(folder, origin):
    pages = {
        "index.md": "# Lighthouse\n\nA manual for keepers.\n\n!!! note\n    Read *Installing* first.\n\n" + PARAGRAPH * 3,
        "guide/install.md": "# Installing\n\n" + PARAGRAPH + "\n" + TABS + "\n" + PARAGRAPH * 2,
        "guide/configure.md": long_page(),
        "reference/commands.md": "# Commands\n\n| command | does |\n| --- | --- |\n| `light` | lights the lamp |\n"
                                 "| `wind` | winds the clockwork |\n| `sound` | sounds the fog signal |\n\n" + PARAGRAPH * 2,
        "reference/settings.md": "# Settings\n\n" + TABS + "\n## Intervals\n\n" + PARAGRAPH * 4,
        "about.md": "# About\n\n" + PARAGRAPH * 2,
    }
    for name, text in pages.items():
        path = os.path.join(folder, "docs", name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    with open(os.path.join(folder, "mkdocs.yml"), "w") as f:
        f.write(MATERIAL_YML.format(origin=origin))
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--quiet", "--site-dir", "site"], cwd=folder, check=True)


def openapi_document():
    def operation(summary, tag, op_id, schema, status="200"):
        return {"summary": summary, "tags": [tag], "operationId": op_id,
                "responses": {status: {"description": summary, "content": {"application/json": {"schema": schema}}}}}
    keeper = {"$ref": "#/components/schemas/Keeper"}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Lighthouse API", "version": "1.2.0",
                 "description": "Lamps, keepers and the log of a lighthouse."},
        "servers": [{"url": "/api"}],
        "paths": {
            "/keepers": {
                "get": operation("List the keepers", "keepers", "listKeepers", {"type": "array", "items": keeper}),
                "post": {**operation("Hire a keeper", "keepers", "hireKeeper", keeper, "201"),
                         "requestBody": {"required": True, "content": {"application/json": {"schema": keeper}}}},
            },
            "/keepers/{id}": {
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "get": operation("Read a keeper", "keepers", "readKeeper", keeper),
                "delete": operation("Dismiss a keeper", "keepers", "dismissKeeper", {"type": "object"}, "204"),
            },
            "/lamp": {"put": operation("Light or dim the lamp", "lamp", "setLamp",
                                       {"type": "object", "properties": {"lit": {"type": "boolean"}}})},
            "/log": {"get": operation("Read the log", "log", "readLog",
                                      {"type": "array", "items": {"type": "string"}})},
        },
        "components": {"schemas": {"Keeper": {
            "type": "object", "required": ["name"],
            "properties": {"id": {"type": "integer", "example": 7}, "name": {"type": "string", "example": "Ada"},
                           "since": {"type": "string", "format": "date"}}}}},
    }


SWAGGER_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Lighthouse API - Swagger UI</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="dist/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="dist/swagger-ui-bundle.js"></script>
<script src="dist/swagger-ui-standalone-preset.js"></script>
<script>
window.ui = SwaggerUIBundle({url: "openapi.json", dom_id: "#swagger-ui", validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: "StandaloneLayout"});
</script></body></html>
"""

REDOC_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Lighthouse API - ReDoc</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="openapi.json"></redoc>
<script src="dist/bundles/redoc.standalone.js"></script></body></html>
"""


def openapi(folder, kind, dist):
    os.makedirs(folder, exist_ok=True)
    # A copy, not a link: nginx's workers may not enter the folder of the virtual environment.
    shutil.copytree(dist, os.path.join(folder, "dist"), ignore=shutil.ignore_patterns("*.map"))
    with open(os.path.join(folder, "openapi.json"), "w") as f:
        json.dump(openapi_document(), f, indent=1)
    with open(os.path.join(folder, "index.html"), "w") as f:
        f.write(SWAGGER_HTML if kind == "swagger" else REDOC_HTML)


SPHINX_CONF = """\
project = "Lighthouse"
author = "The keepers"
html_theme = "sphinx_book_theme"
html_title = "Lighthouse"
html_theme_options = {"show_toc_level": 2}
"""


def sphinx(folder):
    src = os.path.join(folder, "src")
    os.makedirs(src, exist_ok=True)
    with open(os.path.join(src, "conf.py"), "w") as f:
        f.write(SPHINX_CONF)
    rst = {
        "index": "Lighthouse\n==========\n\nA manual for keepers.\n\n.. toctree::\n   :maxdepth: 2\n\n   install\n   configure\n   commands\n",
        "install": "Installing\n==========\n\n" + PARAGRAPH * 3 + "\n\n.. note::\n\n   Read the log first.\n",
        "configure": "Configuring\n===========\n\n" + "".join(
            f"{s}\n{'-' * len(s)}\n\n{PARAGRAPH * 4}\n\n" for s in ["The lamp", "The clockwork", "The fog signal", "The log"]),
        "commands": "Commands\n========\n\n.. list-table::\n\n   * - ``light``\n     - lights the lamp\n   * - ``wind``\n     - winds the clockwork\n",
    }
    for name, text in rst.items():
        with open(os.path.join(src, name + ".rst"), "w") as f:
            f.write(text)
    subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", src, os.path.join(folder, "site")], check=True)


JAVA = {
    "lighthouse/Lamp.java": """package lighthouse;

/** The lamp at the top of the tower: lit at dusk, put out at dawn. */
public class Lamp {
    /** Candela of a new lamp. */
    public static final int BRIGHTNESS = 1200;
    private boolean lit;

    /**
     * Lights the lamp, unless it already is.
     * @return whether it was dark before
     */
    public boolean light() { boolean was = lit; lit = true; return !was; }

    /** Puts the lamp out. */
    public void putOut() { lit = false; }

    /**
     * Whether the lamp is lit.
     * @return true once {@link #light()} was called
     */
    public boolean isLit() { return lit; }
}
""",
    "lighthouse/Clockwork.java": """package lighthouse;

/**
 * Turns the lens; wound by the keeper every four hours.
 * @see Lamp
 */
public class Clockwork {
    private int turns;

    /**
     * Winds it by {@code turns} turns.
     * @param turns how many
     * @throws IllegalArgumentException when negative
     */
    public void wind(int turns) {
        if (turns < 0) throw new IllegalArgumentException("turns");
        this.turns += turns;
    }

    /**
     * The turns left.
     * @return the turns left
     */
    public int remaining() { return turns; }
}
""",
    "lighthouse/log/Entry.java": """package lighthouse.log;

/**
 * One line of the keeper's log.
 * @param hour the hour
 * @param text what happened
 */
public record Entry(int hour, String text) {}
""",
    "lighthouse/log/Weather.java": """package lighthouse.log;

/** The weather written beside each entry. */
public enum Weather {
    /** No cloud. */ CLEAR,
    /** The fog signal sounds. */ FOG,
    /** The keeper stays in. */ STORM
}
""",
}


def javadoc(folder):
    """A small library of two packages documented by Debian's javadoc (openjdk-17), with its
    search: a whole site, so that every link of a copy is local."""
    src = os.path.join(folder, "src")
    for name, text in JAVA.items():
        path = os.path.join(src, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    subprocess.run(["/usr/lib/jvm/java-17-openjdk-amd64/bin/javadoc", "-quiet", "-d", os.path.join(folder, "site"),
                    "-sourcepath", src, "-doctitle", "Lighthouse", "lighthouse", "lighthouse.log"],
                   check=True, stdout=subprocess.DEVNULL)


# --- A crawl's pages and their screenshots ----------------------------------------------

def pages(out):
    with open(os.path.join(out, ".mirror", "manifest.json")) as f:
        manifest = json.load(f)
    seen = set()  # one line per file: "/" and "/index.html" may both be saved, as one file
    for url, resource in sorted(manifest["resources"].items()):
        if resource.get("status") == 200 and (resource.get("contentType") or "").startswith("text/html"):
            if resource["path"] not in seen:
                seen.add(resource["path"])
                print(f"{url}\t{pathlib.Path(out, resource['path']).resolve().as_uri()}")


def differing(a, b):
    """The mask of the pixels that differ between two images of one size, and their count."""
    from PIL import ImageChops
    mask = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v else 0)
    return mask, mask.histogram()[255]


def compare(offline_path, diff, *live_paths):
    """The offline shot against the closest of the live ones (two loads of the live page: one
    alone may catch a state that a load does not always show, as sphinx-book-theme's search
    button half styled); notes when the live shots differ between themselves."""
    from PIL import Image
    paths = [offline_path, *live_paths]
    missing = [path for path in paths if not os.path.exists(path)]
    if missing:
        print("no screenshot: " + " ".join(os.path.basename(path) for path in missing))
        return
    offline, *lives = [Image.open(path).convert("RGB") for path in paths]
    if any(live.size != offline.size for live in lives):
        print(f"sizes differ: {offline.size} offline, {[live.size for live in lives]} live")
        return
    mask, count = min((differing(live, offline) for live in lives), key=lambda found: found[1])
    unstable = max((differing(lives[0], live)[1] for live in lives[1:]), default=0)
    note = f" (the live shots differ by {unstable} px between themselves)" if unstable else ""
    if count == 0:
        print("identical" + note)
        return
    # The diff image: the offline shot dimmed, the differing pixels in red.
    shown = Image.blend(offline, Image.new("RGB", offline.size, "white"), 0.6)
    shown.paste(Image.new("RGB", offline.size, (255, 0, 0)), mask=mask)
    shown.save(diff)
    print(f"{100 * count / (offline.size[0] * offline.size[1]):.2f}% ({count} px){note}")


# --- Interactions over the DevTools protocol --------------------------------------------

class Browser:
    """Headless Chromium with a DevTools port on 127.0.0.1 (chosen by Chromium: port 0, read
    from DevToolsActivePort), a profile of its own, and one page driven over a WebSocket."""

    def __init__(self, args, size=(1280, 800)):
        import websocket
        self.profile = tempfile.mkdtemp(prefix="browser-apps-profile.")
        self.process = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
             f"--user-data-dir={self.profile}", f"--window-size={size[0]},{size[1]}",
             "--disable-background-networking", "--disable-component-update", *args, "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        self.ws = None
        atexit.register(self.close)  # a caller that fails midway leaves no browser behind
        active = os.path.join(self.profile, "DevToolsActivePort")
        for _ in range(200):
            if os.path.exists(active) and open(active).read().count("\n") >= 1:
                break
            time.sleep(0.05)
        port = int(open(active).read().split("\n")[0])
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
        page = next(t for t in targets if t["type"] == "page")
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=30, suppress_origin=True)
        self.next_id = 0

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def js(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return result.get("result", {}).get("value")

    def open(self, url):
        self.call("Page.navigate", url=url)
        self.wait("document.readyState === 'complete' && location.href !== 'about:blank'", 20)
        time.sleep(1.5)  # the apps render after the load event (Swagger UI fetches its document then)

    def wait(self, expression, seconds):
        deadline = time.time() + seconds
        while time.time() < deadline:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.2)
        return self.js(expression)

    def click(self, selector):
        """A real click (mouse pressed and released) at the middle of the first match."""
        box = self.js(f"""(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;
            e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect();
            return [r.x + r.width / 2, r.y + r.height / 2]; }})()""")
        if not box:
            return False
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)
        return True

    def type(self, text):
        for char in text:
            self.call("Input.dispatchKeyEvent", type="keyDown", text=char, key=char, unmodifiedText=char)
            self.call("Input.dispatchKeyEvent", type="keyUp", key=char)
            time.sleep(0.05)

    def enter(self):
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key="Enter", code="Enter", windowsVirtualKeyCode=13,
                      **({"text": "\r"} if kind == "keyDown" else {}))

    def close(self):
        """Ends the browser's whole process group and removes its profile; again is harmless."""
        try:
            if self.ws:
                self.ws.close()
                self.ws = None
        finally:
            try:
                os.killpg(self.process.pid, 9)
            except ProcessLookupError:
                pass
            self.process.wait()
            shutil.rmtree(self.profile, ignore_errors=True)


def count(selector):
    return f"document.querySelectorAll({json.dumps(selector)}).length"


def swagger(b):
    if not b.wait(count(".opblock-summary"), 10):
        return False, "no operation rendered"
    if not b.click(".opblock .opblock-summary-control, .opblock .opblock-summary"):
        return False, "nothing to click"
    opened = b.wait(count(".opblock.is-open .opblock-body"), 5)
    return bool(opened), "the operation's body expanded" if opened else "the operation did not expand"


def search(b, box, query, results, ready=None, missing="no search box"):
    """Types `query` into the search box `box` (once `ready` holds) and counts `results`."""
    if (ready and not b.wait(ready, 10)) or not b.click(box):
        return False, missing
    b.type(query)
    found = b.wait(count(results), 8)
    return bool(found), f"{found} results" if found else "no result"


def material_search(b):
    return search(b, ".md-search__input", "clockwork", ".md-search-result__item")


def redoc(b):
    box = "[role=search] input, input[placeholder='Search...']"
    return search(b, box, "keeper", "[data-role='search:results'] li, [data-role='search:results'] label", ready=count(box))


def javadoc_search(b):
    return search(b, "#search-input", "Clock", ".ui-autocomplete li",
                  ready="(() => { const e = document.querySelector('#search-input'); return e && !e.disabled; })()",
                  missing="no search box enabled")


def doxygen_tree(b):
    """Expands the first closed node of the navigation tree (navtree.js adds its children)."""
    if not b.wait(count("#nav-tree a .arrow, #nav-tree span.arrow"), 10):
        return False, "no navigation tree"
    before = b.js(count("#nav-tree li"))
    b.click("#nav-tree .children_ul li span.arrow, #nav-tree li li span.arrow")
    after = b.wait(f"{count('#nav-tree li')} > {before} && {count('#nav-tree li')}", 5)
    return bool(after), f"{before} -> {after} tree entries" if after else f"{before} tree entries, none added"


def sphinx_search(b):
    """The theme's search button opens its box; Enter loads search.html, which fills results."""
    if not b.click(".search-button, button[aria-label='Search']"):
        return False, "no search button"
    b.wait("document.activeElement && document.activeElement.tagName === 'INPUT'", 3)
    b.type("clockwork")
    b.enter()
    time.sleep(1)
    b.wait("document.readyState === 'complete'", 10)
    found = b.wait(count("#search-results li, ul.search li"), 8)
    page = b.js("location.href.split('/').slice(-1)[0] || location.href")
    return bool(found), f"{found} results" if found else f"no result (ended on {page})"


INTERACTIONS = {"swagger": swagger, "material": material_search, "redoc": redoc,
                "javadoc": javadoc_search, "doxygen": doxygen_tree, "sphinx": sphinx_search}


def interact(app, url, args):
    # Stopped by the script's time limit: the browser (a process group of its own) goes too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("interaction stopped"))
    b = Browser(args)
    try:
        b.call("Page.enable")
        b.open(url)
        passed, detail = INTERACTIONS[app](b)
    except Exception as error:  # the report says why, the script goes on
        passed, detail = False, f"error: {error}"
    finally:
        b.close()
    print(("pass " if passed else "fail ") + detail)


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "material":
        material(*args)
    elif command == "openapi":
        openapi(*args)
    elif command == "sphinx":
        sphinx(*args)
    elif command == "javadoc":
        javadoc(*args)
    elif command == "pages":
        pages(*args)
    elif command == "compare":
        compare(*args)
    elif command == "interact":
        interact(args[0], args[1], args[2:])
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
