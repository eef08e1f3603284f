import MirrorCache
import MirrorCore
import MirrorCredentials

/// `--browser`: loads each saved page in the renderer, every request it makes answered the
/// crawl's way.
struct PageLoader: Sendable {
    let renderer: any PageRenderer
    let credentials: CrawlCredentials
    let scope: ScopeRules
    let robots: RobotsGate
    let frontier: any CrawlFrontier
    let sender: RequestSender
    let recorder: ReportRecorder
    let events: (@Sendable (CrawlEvent) -> Void)?

    /// Loads `item`'s page in the browser; nil when the browser failed (the note says so, and the
    /// page is saved as its bytes were).
    func render(_ item: CrawlItem) async -> RenderedPage? {
        let started = ContinuousClock.now
        do {
            // The browser shares the crawl's jar: it sees the login, and what the page sets is kept.
            let page = try await renderer.render(item.url, cookies: credentials.jar) { [self] request in
                await self.browserFetch(request, for: item)
            }
            for note in page.notes { recorder.note(item, note) }
            recorder.report.withLock { report in
                report.rendered += 1
                if page.form == .snapshot { report.snapshots += 1 }
            }
            events?(
                .rendered(
                    url: item.url, milliseconds: Int((ContinuousClock.now - started).seconds * 1000), snapshot: page.form == .snapshot))
            return page
        } catch _ where Task.isCancelled {
            return nil
        } catch {
            recorder.note(item, "the browser failed (\(error)): the page is saved as it was sent")
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
                switch try await robots.answer(for: parts, normalized: url) {
                case .allowed: break
                case .disallowed: refusal = .robots
                case .unusable(let problem): return .refused("robots.txt \(problem)")
                }
            }
            if let refusal {
                let item = CrawlItem(url: url, depth: page.depth, role: .requisite, hops: 0, referrer: page.url)
                if try await frontier.firstSightings([url]) == [true], try await frontier.add([], skipped: [(item, refusal)]) == [true] {
                    recorder.skip(item, refusal)
                }
                return .refused(refusal.rawValue)
            }
        } catch {
            return .refused("\(error)")
        }
        var request = original
        request.url = url
        do {
            return .response(try await sender.send(request))
        } catch {
            return .refused("\(error)")
        }
    }
}
