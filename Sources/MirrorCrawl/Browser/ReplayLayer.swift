import Foundation
import MirrorCore

/// What makes a page whose content came by `fetch`/XHR work from `file://` with its own scripts:
/// a script put before the page's first script that answers the page's GET requests by
/// `fetch` and `XMLHttpRequest`, and the scripts of the workers it starts, with the responses
/// recorded during the crawl, held in the
/// script itself (so the copy needs nothing beside it, from the folder, a bundle or `mirror
/// serve`). A request is looked up as the page wrote it (resolved against the page's live URL)
/// and as the copy resolved it, mapped back to the live URL through the path between the two; it
/// is answered with a `blob:` URL of the recorded body, which a `file://` page may load. What it
/// cannot answer goes on to the network (none offline) and is listed in
/// `window.__mirrorReplay.misses`, which the offline check reads. A script the page adds
/// (`<script src>` set by its code) is answered when it is the script form of recorded data that
/// a tool loads from `file://` instead, knowing it cannot fetch there: Material for MkDocs'
/// `search/search_index.js` (written by its offline plugin, it defines `__index` as the content
/// of `search/search_index.json`).
struct ReplayLayer {
    struct Recorded {
        let url: String
        let contentType: String
        let body: [UInt8]
    }

    /// The largest body held in a page: a bigger one is left out (and listed as a miss offline).
    static let maxBody = 4 << 20

    /// The page's live URL up to the last `/` of its path: what its relative requests resolve
    /// against, and the same for `/` and `/index.html`, whose copies can then share one file.
    let base: String
    let responses: [Recorded]

    init(pageURL: String, responses: [Recorded]) {
        let path = pageURL.split(separator: "#", maxSplits: 1)[0].split(separator: "?", maxSplits: 1)[0]
        base = path.lastIndex(of: "/").map { String(path[...$0]) } ?? String(path)
        self.responses = responses
    }

    /// `html` with the layer put before its first `<script` (after the `<meta charset>` that
    /// usually comes first, which must stay in the first 1024 bytes), else before `</head>`, else
    /// at its start.
    func inject(into html: [UInt8]) -> [UInt8] {
        let script = Array(("<script data-mirror-replay>" + source + "</script>").utf8)
        let at = Self.firstTag("<script", in: html) ?? Self.firstTag("</head", in: html) ?? 0
        return Array(html[..<at]) + script + Array(html[at...])
    }

    /// Where the first `tag` (ASCII, lower case) starts in `html`, case-insensitively.
    static func firstTag(_ tag: String, in html: [UInt8]) -> Int? {
        let pattern = Array(tag.utf8)
        guard html.count >= pattern.count else { return nil }
        outer: for start in 0...(html.count - pattern.count) {
            for (offset, byte) in pattern.enumerated() where html[start + offset] | 0x20 != byte | 0x20 { continue outer }
            return start
        }
        return nil
    }

    /// The script: the table of responses, then the code. Only ASCII, and no `<` (escaped), so
    /// that neither the page's charset nor an HTML parser can change it.
    var source: String {
        var table = "{"
        for (index, response) in responses.enumerated() {
            if index > 0 { table += "," }
            table +=
                Self.jsonString(response.url) + ":[" + Self.jsonString(response.contentType) + ",\""
                + Data(response.body).base64EncodedString() + "\"]"
        }
        table += "}"
        return "(" + Self.install + ")(\(Self.jsonString(base)), location.href.split('#')[0], \(table));"
    }

    private static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case " "..."~" where scalar != "<": out.unicodeScalars.append(scalar)
            default:
                for unit in String(scalar).utf16 { out += "\\u" + String(unit, radix: 16).leftPadded(to: 4) }
            }
        }
        return out + "\""
    }

    /// `install(page, here, recorded)`: the layer in a window or a worker. `page` is the live
    /// base URL relative requests resolve against, `here` the copy's own URL (a worker's is a
    /// `blob:` one, so it is given the page's). A worker the page starts from a recorded script is
    /// started from a `blob:` URL of it, with the layer installed first (`file://` pages cannot
    /// start workers from files).
    private static let install = """
        function install(page, here, recorded) {
          const misses = [], blobs = new Map(), scope = self;
          scope.__mirrorReplay = { misses };
          const base = () => typeof document === 'undefined' ? here : document.baseURI;
          // Script forms of recorded data: [prefix, the data's URL, suffix].
          const scripts = {};
          for (const url of Object.keys(recorded)) {
            if (url.endsWith('/search/search_index.json')) scripts[url.slice(0, -2)] = ['var __index = ', url, ';'];
          }
          // The live URL of a request: as the page wrote it, else as the copy resolved it, mapped
          // back through the path from the copy to it.
          const live = (input) => {
            const text = String(input);
            const written = new URL(text, page).href.split('#')[0];
            if (recorded[written] || scripts[written]) return written;
            const url = new URL(text, base());
            if (url.protocol !== 'file:') return url.href.split('#')[0];
            const from = new URL(here).pathname.split('/').slice(0, -1), to = url.pathname.split('/');
            let i = 0;
            while (i < from.length && i < to.length - 1 && from[i] === to[i]) i++;
            return new URL('../'.repeat(from.length - i) + to.slice(i).join('/') + url.search, page).href;
          };
          const bytes = (hit) => Uint8Array.from(atob(hit[1]), c => c.charCodeAt(0));
          // A blob: URL of the recorded body of a GET, or null (a miss, noted).
          const answer = (input, method) => {
            if (method && String(method).toUpperCase() !== 'GET') return null;
            const url = live(input), hit = recorded[url];
            if (!hit) { if (!misses.includes(url)) misses.push(url); return null; }
            if (!blobs.has(url)) blobs.set(url, URL.createObjectURL(new Blob([bytes(hit)], { type: hit[0] })));
            return blobs.get(url);
          };
          // A blob: URL of the script form of recorded data that the page adds, or null.
          const script = (input) => {
            const url = live(input), form = scripts[url];
            if (!form) return null;
            if (!blobs.has(url)) {
              blobs.set(url, URL.createObjectURL(new Blob([form[0], bytes(recorded[form[1]]), form[2]], { type: 'text/javascript' })));
            }
            return blobs.get(url);
          };
          if (typeof HTMLScriptElement !== 'undefined') {
            const src = Object.getOwnPropertyDescriptor(HTMLScriptElement.prototype, 'src');
            Object.defineProperty(HTMLScriptElement.prototype, 'src', { ...src, set(value) { src.set.call(this, script(value) || value); } });
            const setAttribute = Element.prototype.setAttribute;
            Element.prototype.setAttribute = function (name, value) {
              const blob = this instanceof HTMLScriptElement && String(name).toLowerCase() === 'src' ? script(value) : null;
              return setAttribute.call(this, name, blob || value);
            };
          }
          const fetch = scope.fetch;
          scope.fetch = function (input, init) {
            const request = input instanceof Request ? input : null;
            const blob = answer(request ? request.url : input, (init && init.method) || (request && request.method));
            return blob ? fetch.call(this, blob) : fetch.apply(this, arguments);
          };
          const open = XMLHttpRequest.prototype.open;
          XMLHttpRequest.prototype.open = function (method, url, ...rest) {
            const blob = answer(url, method);
            return open.call(this, method, blob || url, ...rest);
          };
          const Worker = scope.Worker;
          if (Worker) scope.Worker = function (url, options) {
            const script = live(url), hit = recorded[script];
            if (!hit || (options && options.type === 'module')) {
              if (!misses.includes(script)) misses.push(script);
              return new Worker(url, options);
            }
            const prelude = '(' + install + ')(' + JSON.stringify(new URL('.', script).href) + ', ' + JSON.stringify(here) +
              ', ' + JSON.stringify(recorded) + ');\\n';
            return new Worker(URL.createObjectURL(new Blob([prelude, bytes(hit)], { type: 'text/javascript' })), options);
          };
          if (Worker) scope.Worker.prototype = Worker.prototype;
        }
        """
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
