import MirrorLock

/// A launched Chromium and what the renderer made in it: a browser context per tab (each with
/// its own proxy), and the routing of browser-wide events to the page they concern.
final class RunningBrowser: Sendable {
    let process: BrowserProcess
    private let contexts = Locked<[Int: String]>([:])
    /// The events of each loading page, by its target id (which is also its main frame's id).
    private let pages = Locked<[String: PageEvents]>([:])

    init(process: BrowserProcess) {
        self.process = process
    }

    var devTools: DevToolsPipe { process.devTools }

    /// Starts routing browser-wide events: windows a page opens are closed, downloads it starts
    /// are noted (they are denied).
    func start() async throws {
        devTools.listen(session: "") { [weak self] method, params in self?.take(method, params) }
        try await devTools.call("Target.setDiscoverTargets", ["discover": true])
    }

    private func take(_ method: String, _ params: JSONValue) {
        switch method {
        case "Target.targetCreated":
            let info = params["targetInfo"]
            guard let target = info?["targetId"]?.string, let opener = info?["openerId"]?.string else { return }
            pages.withLock { $0[opener] }?.note("opened a window (closed): \(info?["url"]?.string ?? "")")
            let devTools = devTools
            Task { _ = try? await devTools.call("Target.closeTarget", ["targetId": .string(target)], timeout: .seconds(5)) }
        case "Browser.downloadWillBegin":
            guard let frame = params["frameId"]?.string else { return }
            pages.withLock { $0[frame] }?.note("started a download (not saved): \(params["url"]?.string ?? "")")
        default:
            break
        }
    }

    func route(target: String, to events: PageEvents?) {
        pages.withLock { $0[target] = events }
    }

    /// The slot of the context the offline check opens copies in (`ChromiumRenderer.compareOffline`).
    static let offlineSlot = -1

    /// The browser context of tab `slot`, created on first use with the proxy on `proxyPort`
    /// (nil: none).
    func context(for slot: Int, proxyPort: Int?) async throws -> String {
        if let context = contexts.withLock({ $0[slot] }) { return context }
        var parameters: [String: JSONValue] = ["disposeOnDetach": false]
        if let proxyPort {
            parameters["proxyServer"] = .string("http://127.0.0.1:\(proxyPort)")
            // Without this, Chromium sends loopback addresses around the proxy.
            parameters["proxyBypassList"] = "<-loopback>"
        }
        let created = try await devTools.call("Target.createBrowserContext", .object(parameters))
        guard let context = created["browserContextId"]?.string else { throw BrowserError.protocolError("no browser context id") }
        try await devTools.call(
            "Browser.setDownloadBehavior",
            [
                "behavior": "deny", "browserContextId": .string(context), "eventsEnabled": true,
            ])
        contexts.withLock { $0[slot] = context }
        return context
    }
}
