import MirrorCache
import MirrorCore
import MirrorHTML
import NIOHTTP1

/// `--browser`: each saved page is loaded in the renderer, every request it makes answered the
/// crawl's way, and what the browser found joins the page's links.
extension Crawler {
    /// Loads `item`'s page in the browser; nil when the browser failed (the note says so, and the
    /// page is saved as its bytes were).
    func render(_ item: CrawlItem) async -> RenderedPage? {
        guard let renderer else { return nil }
        let started = ContinuousClock.now
        do {
            // The browser shares the crawl's jar: it sees the login, and what the page sets is kept.
            let page = try await renderer.render(item.url, cookies: credentials.jar) { [self] request in
                await self.browserFetch(request, for: item)
            }
            for note in page.notes { recordNote(item, note) }
            report.withLock { report in
                report.rendered += 1
                if page.form == .snapshot { report.snapshots += 1 }
            }
            events?(.rendered(url: item.url, milliseconds: Int((ContinuousClock.now - started).seconds * 1000), snapshot: page.form == .snapshot))
            return page
        } catch where Task.isCancelled {
            return nil
        } catch {
            recordNote(item, "the browser failed (\(error)): the page is saved as it was sent")
            return nil
        }
    }

    /// One request the page makes in the browser, as a requisite of the page: scope, robots.txt,
    /// politeness, credentials and the cache apply as to any other, and a URL refused is counted
    /// in the report's skips once, as a link would be.
    func browserFetch(_ original: CacheRequest, for page: CrawlItem) async -> PageFetchResult {
        guard let parts = URLParts(original.url), let url = scope.resolve(original.url, against: parts) else {
            return .refused("not an http(s) URL")
        }
        var refusal = scope.check(parts, normalized: url, role: .requisite, depth: page.depth)
        do {
            if refusal == nil {
                switch try await robotsAnswer(for: parts, normalized: url) {
                case .allowed: break
                case .disallowed: refusal = .robots
                case .unusable(let problem): return .refused("robots.txt \(problem)")
                }
            }
            if let refusal {
                let item = CrawlItem(url: url, depth: page.depth, role: .requisite, hops: 0, referrer: page.url)
                if try await frontier.firstSightings([url]) == [true], try await frontier.add([], skipped: [(item, refusal)]) == [true] {
                    recordSkip(item, refusal)
                }
                return .refused(refusal.rawValue)
            }
        } catch {
            return .refused("\(error)")
        }
        var request = original
        request.url = url
        do {
            return .response(try await send(request))
        } catch {
            return .refused("\(error)")
        }
    }

    /// The page's links with what the browser found: the rendered DOM's links (pages) and frames,
    /// the URLs the page loaded (requisites, so each is saved and found offline under its name),
    /// and the links of the snapshot when there is one.
    func browserLinks(_ page: RenderedPage, of url: URLParts, adding known: PageLinks) -> PageLinks {
        var found = page.links.map { ExtractedLink(reference: $0, kind: .navigation, source: "browser a[href]") }
        found += (page.frames + page.requested).map { ExtractedLink(reference: $0, kind: .requisite, source: "browser request") }
        if let snapshot = page.snapshot {
            let locator = HTMLReferenceLocator(charset: "utf-8")
            locator.feed(snapshot)
            _ = locator.finish()
            found += locator.links.links
        }
        var seen = Set(known.links)
        var links = known.links
        for link in resolved(found, against: url) where seen.insert(link).inserted { links.append(link) }
        return PageLinks(links: links)
    }

    /// The folder's copy of a page loaded in the browser, in `form`: its rendered DOM as UTF-8
    /// HTML, or its own bytes (with what its tool needs to run from `file://`), with the replay
    /// layer when its scripts fetched data (each response read from the cache, where the page's
    /// requests put it). nil when that form cannot be had (no snapshot was taken).
    func copy(of response: CacheResponse, in form: RenderedPage.CopyForm, snapshot: [UInt8]?, data: [String],
              pageURL: String) async -> CacheResponse? {
        switch form {
        case .snapshot:
            guard let snapshot else { return nil }
            var headers = response.headers
            headers.replaceOrAdd(name: "Content-Type", value: "text/html; charset=utf-8")
            return Self.changed(response, headers: headers, body: snapshot)
        case .original:
            guard let page = try? response.body.collect() else { return response }
            let switched = FileSchemeSwitches.apply(to: page)
            guard !data.isEmpty else { return switched == page ? response : Self.changed(response, headers: response.headers, body: switched) }
            var recorded: [ReplayLayer.Recorded] = []
            for url in data {
                guard let answer = try? await send(CacheRequest(url: url)), (200..<300).contains(answer.status),
                      answer.body.count <= ReplayLayer.maxBody, let body = try? answer.body.collect() else { continue }
                recorded.append(.init(url: url, contentType: answer.headers.first(name: "content-type") ?? "application/octet-stream",
                                      body: body))
            }
            let layer = ReplayLayer(pageURL: pageURL, responses: recorded)
            return Self.changed(response, headers: response.headers, body: layer.inject(into: switched))
        }
    }

    /// `response` with other bytes: no length or validator of the original's.
    private static func changed(_ response: CacheResponse, headers: HTTPHeaders, body: [UInt8]) -> CacheResponse {
        var headers = headers
        headers.remove(name: "content-length")
        headers.remove(name: "etag")
        return CacheResponse(status: response.status, headers: headers, body: ResponseBody(bytes: body), outcome: response.outcome)
    }

    func recordNote(_ item: CrawlItem, _ message: String) {
        report.withLock { $0.browserNotes.append(.init(url: item.url, message: message)) }
    }
}
