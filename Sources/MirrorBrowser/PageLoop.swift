import Foundation
import MirrorCrawl
import MirrorCredentials

/// Loads one page in one tab and reads what it became: navigate, wait for the load event, then
/// for the network to be idle (as the tab's proxy counts it), scroll to the bottom in steps
/// (again while scrolling brings more content), back to the top, idle again, and the page's own
/// frames and transitions run their course (`PageScripts.settle`, also before scrolling, when
/// the screenshot the offline check compares with is taken); then the rendered DOM's links, and
/// its snapshot when content came by `fetch`/XHR (or the check may need it). The whole is bounded by the
/// page timeout: a page that never settles is read as it is then, and its notes say so. With a
/// cookie jar, the tab's browser context holds the jar's cookies (and no others) while the page
/// loads, and what the page set comes back into the jar once it has been read.
struct PageLoop: Sendable {
    let settings: ChromiumRenderer.Settings

    /// - Parameters:
    ///   - jar: the crawl's cookies, given to the context before the page loads and kept from it
    ///     after; nil: the context's cookies are left as they are.
    ///   - proxy: the tab's proxy, which answers and counts the page's requests.
    func load(
        _ url: String, cookies jar: CookieJar?, fetch: @escaping PageFetch, in browser: RunningBrowser, context: String,
        proxy: PageProxy
    ) async throws -> RenderedPage {
        let deadline = ContinuousClock.now + settings.pageTimeout
        let devTools = browser.devTools
        let traffic = PageTraffic(limit: settings.maxRequestsPerPage, fetch: fetch)
        let events = PageEvents(traffic: traffic, countsRequests: false)
        // Before the page's target exists: the previous page's cookies go, the jar's come.
        let cookies = jar.map { BrowserCookies(jar: $0, context: context, devTools: devTools) }
        var given: [Cookie] = []
        if let cookies {
            do {
                given = try await cookies.give(timeout: min(max(deadline - .now, .seconds(1)), .seconds(5)))
            } catch {
                try Self.checkAlive(devTools, events)
                events.note("the browser could not be given the crawl's cookies (\(error)): its scripts did not see them")
            }
        }
        proxy.attach(traffic)
        defer { proxy.attach(nil) }
        return try await inNewTab(of: browser, context: context, events: events) { session in
            try await settleAndRead(
                url, session: session, devTools: devTools, traffic: traffic, events: events,
                cookies: cookies.map { ($0, given) }, deadline: deadline)
        }
    }

    /// Opens the saved copy at `fileURL` in `context` (whose proxy refuses every request) as a
    /// visitor would: its load event, its network idle (counted from the browser's events), its
    /// frames and transitions settled; returns its screenshot, and the requests its replay layer
    /// could not answer (`window.__mirrorReplay.misses`). A shot unlike `live` is taken again
    /// while the copy may still be drawing (`redrawWait`): work its scripts do after the network
    /// is quiet (a worker answering from recorded data) is not seen by the idle wait.
    func screenshotOffline(_ fileURL: String, like live: [UInt8], in browser: RunningBrowser, context: String) async throws
        -> (screenshot: [UInt8], unanswered: [String])
    {
        let deadline = ContinuousClock.now + settings.pageTimeout
        let devTools = browser.devTools
        let traffic = PageTraffic(limit: settings.maxRequestsPerPage) { _ in .refused("offline") }
        let events = PageEvents(traffic: traffic, countsRequests: true)
        return try await inNewTab(of: browser, context: context, events: events) { session in
            try await Self.prepare(session: session, devTools: devTools)
            _ = try? await devTools.call(
                "Page.navigate", ["url": .string(fileURL)], session: session,
                timeout: max(deadline - .now, .seconds(1)))
            var settled = await waitForLoad(events, devTools: devTools, deadline: deadline)
            // A copy's files come from the disk and its data from the replay layer: a short quiet
            // time says it is idle (a copy that draws later is shot again below).
            if settled { settled = await traffic.waitIdle(quiet: min(settings.quietTime, .milliseconds(50)), deadline: deadline) }
            if settled { settled = await settle(session: session, devTools: devTools, deadline: deadline) }
            try Self.checkAlive(devTools, events)
            guard settled else { throw BrowserError.closed("the copy did not settle within \(settings.pageTimeout)") }
            let shooting = ContinuousClock.now
            var screenshot = try await Self.screenshot(session: session, devTools: devTools, timeout: max(deadline - .now, .seconds(1)))
            var changing = true
            while screenshot != live && .now - shooting < (changing ? Self.redrawLimit : Self.redrawWait)
                && .now + Self.redrawStep < deadline
            {
                try await Task.sleep(for: Self.redrawStep)
                _ = await settle(session: session, devTools: devTools, deadline: deadline)
                let next = try await Self.screenshot(session: session, devTools: devTools, timeout: max(deadline - .now, .seconds(1)))
                changing = next != screenshot
                screenshot = next
            }
            let misses = try? await Self.evaluate(PageScripts.replayMisses, session: session, devTools: devTools, timeout: .seconds(5))
            let unanswered = misses.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
            return (screenshot, unanswered)
        }
    }

    /// How long a copy that does not look like the live page is given to finish drawing, shot
    /// every `redrawStep`; up to `redrawLimit` while each shot differs from the one before (an
    /// endless animation ends the wait there).
    static let redrawWait = Duration.seconds(1)
    static let redrawLimit = Duration.seconds(5)
    static let redrawStep = Duration.milliseconds(200)

    /// Turns on the page's and network's events, and focus: a page that thinks it is in a tab
    /// nobody looks at may hold back its animation frames, and with them its scroll handlers.
    private static func prepare(session: String, devTools: DevToolsPipe) async throws {
        try await devTools.call("Page.enable", session: session)
        try await devTools.call("Network.enable", session: session)
        try await devTools.call("Emulation.setFocusEmulationEnabled", ["enabled": true], session: session)
    }

    /// Runs `body` with the session of a new tab in `context`, its events going to `events`
    /// (dialogs dismissed); the tab is closed after, before the slot's next page starts, so a
    /// page's late requests never count as the next one's.
    private func inNewTab<Value>(
        of browser: RunningBrowser, context: String, events: PageEvents,
        _ body: (_ session: String) async throws -> Value
    ) async throws -> Value {
        let devTools = browser.devTools
        let created = try await devTools.call("Target.createTarget", ["url": "about:blank", "browserContextId": .string(context)])
        guard let target = created["targetId"]?.string else { throw BrowserError.protocolError("no target id") }
        browser.route(target: target, to: events)
        let result: Result<Value, any Error>
        do {
            let attached = try await devTools.call("Target.attachToTarget", ["targetId": .string(target), "flatten": true])
            guard let session = attached["sessionId"]?.string else { throw BrowserError.protocolError("no session id") }
            devTools.listen(session: session) { method, params in
                events.take(method, params) {
                    Task {
                        _ = try? await devTools.call(
                            "Page.handleJavaScriptDialog", ["accept": true], session: session, timeout: .seconds(5))
                    }
                }
            }
            defer { devTools.stopListening(session: session) }
            result = .success(try await body(session))
        } catch {
            result = .failure(error)
        }
        browser.route(target: target, to: nil)
        _ = try? await devTools.call("Target.closeTarget", ["targetId": .string(target)], timeout: .seconds(5))
        return try result.get()
    }

    /// - Parameter cookies: the context's cookies and what it was given, kept once the page is read.
    private func settleAndRead(
        _ url: String, session: String, devTools: DevToolsPipe, traffic: PageTraffic, events: PageEvents,
        cookies: (store: BrowserCookies, given: [Cookie])?, deadline: ContinuousClock.Instant
    ) async throws -> RenderedPage {
        try await Self.prepare(session: session, devTools: devTools)

        var page = RenderedPage()
        try await devTools.call("Page.addScriptToEvaluateOnNewDocument", ["source": .string(PageScripts.recordWorkers)], session: session)
        var workers: [String] = []
        // A navigation that does not commit by the deadline is a page that did not settle, read as it is.
        let navigation = try? await devTools.call(
            "Page.navigate", ["url": .string(url)], session: session,
            timeout: max(deadline - .now, .seconds(1)))
        if let error = navigation?["errorText"]?.string { events.note("the browser could not load it: \(error)") }
        var settled = await waitForLoad(events, devTools: devTools, deadline: deadline)
        if settled { settled = await traffic.waitIdle(quiet: settings.quietTime, deadline: deadline) }
        if settled { settled = await self.settle(session: session, devTools: devTools, deadline: deadline) }
        // The page as a visitor sees it on opening it, before any scrolling: what its copy is checked against.
        if settled && settings.checksPages {
            page.screenshot = try? await Self.screenshot(session: session, devTools: devTools, timeout: max(deadline - .now, .seconds(1)))
        }
        if settled { settled = await scroll(session: session, devTools: devTools, traffic: traffic, deadline: deadline) }
        try Self.checkAlive(devTools, events)
        if !settled {
            events.note("did not settle within \(settings.pageTimeout): saved as it was then")
            // A script in an endless loop would keep the DOM from being read.
            _ = try? await devTools.call("Runtime.terminateExecution", session: session, timeout: .seconds(2))
        }
        let grace = Duration.seconds(5)
        let found = try? await Self.evaluate(PageScripts.links, session: session, devTools: devTools, timeout: grace)
        if let found, let object = try? JSONDecoder().decode(JSONValue.self, from: Data(found.utf8)) {
            page.links = object["links"]?.array?.compactMap(\.string) ?? []
            page.frames = object["frames"]?.array?.compactMap(\.string) ?? []
            workers = object["workers"]?.array?.compactMap(\.string) ?? []
            let location = object["location"]?.string ?? url
            if location.hasPrefix("chrome-error:") {
                events.note("the browser showed an error page: the original page is saved")
            } else if Self.withoutFragment(location) != Self.withoutFragment(url) {
                events.note("navigated itself to \(location): the original page is saved")
                page.links.append(location)
            } else if events.dataByScript || settings.checksPages {
                // Read last: making the scripts inert changes the DOM.
                if let snapshot = try? await Self.evaluate(PageScripts.snapshot, session: session, devTools: devTools, timeout: grace) {
                    page.snapshot = Array(snapshot.utf8)
                    // Checked, a page that fetched its data is first its original with the replay
                    // layer, the snapshot its fallback; unchecked, the snapshot is the safe copy.
                    page.form = events.dataByScript && !settings.checksPages ? .snapshot : .original
                }
            }
        } else {
            events.note("its DOM could not be read: the original page is saved")
        }
        if traffic.requestCount > settings.maxRequestsPerPage {
            events.note("made more than \(settings.maxRequestsPerPage) requests; the rest were refused")
        }
        try Self.checkAlive(devTools, events)
        // What the page's scripts and responses set, into the jar (never into the page, which is stored).
        if let cookies {
            do {
                try await cookies.store.keep(given: cookies.given, timeout: grace)
            } catch {
                try Self.checkAlive(devTools, events)
                events.note("the cookies it set could not be read from the browser (\(error)): they are not kept")
            }
        }
        page.requested = traffic.requested
        // What the replay layer answers offline: what came by fetch/XHR, the workers' scripts, and
        // the data they loaded (seen by the proxy alone); nothing for a page that used neither.
        if events.dataByScript || !workers.isEmpty {
            for url in traffic.data + workers where !page.data.contains(url) { page.data.append(url) }
        }
        page.notes = events.notes
        return page
    }

    /// Throws when the browser ended or the page's renderer crashed: what was read is not the
    /// page's, and the renderer tries it again.
    private static func checkAlive(_ devTools: DevToolsPipe, _ events: PageEvents) throws {
        if devTools.isClosed { throw BrowserError.closed("the browser ended while the page loaded") }
        if events.crashed { throw BrowserError.closed("the page's renderer crashed") }
    }

    private func waitForLoad(_ events: PageEvents, devTools: DevToolsPipe, deadline: ContinuousClock.Instant) async -> Bool {
        while !events.loaded && !events.crashed && !devTools.isClosed {
            guard ContinuousClock.now < deadline, (try? await Task.sleep(for: .milliseconds(20))) != nil else { return false }
        }
        return events.loaded
    }

    /// Scrolls to the bottom, waits for idle, and again while the document grew (content loaded
    /// by scrolling), at most 10 times; then back to the top and idle. False at the deadline.
    private func scroll(session: String, devTools: DevToolsPipe, traffic: PageTraffic, deadline: ContinuousClock.Instant) async -> Bool {
        var height = -1.0
        for _ in 0..<10 {
            guard
                let value = try? await Self.evaluate(
                    PageScripts.scrollToBottom, session: session, devTools: devTools,
                    timeout: max(deadline - .now, .milliseconds(1))),
                await traffic.waitIdle(quiet: settings.quietTime, deadline: deadline)
            else { return false }
            let reached = Double(value) ?? 0
            if reached <= height { break }
            height = reached
        }
        guard
            (try? await Self.evaluate(
                PageScripts.scrollToTop, session: session, devTools: devTools,
                timeout: max(deadline - .now, .milliseconds(1)))) != nil,
            await settle(session: session, devTools: devTools, deadline: deadline),
            await traffic.waitIdle(quiet: settings.quietTime, deadline: deadline)
        else { return false }
        // What the page's scroll handlers fetched or changed on the way back has settled too.
        return await settle(session: session, devTools: devTools, deadline: deadline)
    }

    /// Lets the page's own frames, transitions and animations run their course (`PageScripts.settle`).
    func settle(session: String, devTools: DevToolsPipe, deadline: ContinuousClock.Instant) async -> Bool {
        (try? await Self.evaluate(
            PageScripts.settle, session: session, devTools: devTools,
            timeout: max(deadline - .now, .milliseconds(1)))) != nil
    }

    /// The window's content as a PNG.
    static func screenshot(session: String, devTools: DevToolsPipe, timeout: Duration) async throws -> [UInt8] {
        let result = try await devTools.call("Page.captureScreenshot", ["format": "png"], session: session, timeout: timeout)
        guard let text = result["data"]?.string, let data = Data(base64Encoded: text) else {
            throw BrowserError.protocolError("no screenshot data")
        }
        return Array(data)
    }

    /// Runs `expression` in the page of `session` (awaiting a promise) and returns its value as text.
    static func evaluate(_ expression: String, session: String, devTools: DevToolsPipe, timeout: Duration) async throws -> String {
        let result = try await devTools.call(
            "Runtime.evaluate",
            [
                "expression": .string(expression), "returnByValue": true, "awaitPromise": true,
            ], session: session, timeout: timeout)
        if let exception = result["exceptionDetails"] {
            throw BrowserError.protocolError(exception["exception"]?["description"]?.string ?? exception["text"]?.string ?? "script failed")
        }
        switch result["result"]?["value"] {
        case .string(let text): return text
        case .number(let number): return String(number)
        default: return ""
        }
    }

    private static func withoutFragment(_ url: String) -> Substring {
        url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? Substring(url)
    }
}
