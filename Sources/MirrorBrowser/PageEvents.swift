import MirrorLock

/// What the DevTools events of one loading page said: whether its load event came, whether
/// content came by `fetch`/XHR (its URLs noted in the page's `PageTraffic`), and what a person
/// should know (dialogs, windows, downloads).
final class PageEvents: Sendable {
    private struct State {
        var loaded = false
        var crashed = false
        var dataByScript = false
        var notes: [String] = []
        var inFlight: Set<String> = []
    }

    private let state = Locked(State())
    private let traffic: PageTraffic
    /// The page's requests are counted in `traffic` from its network events: no proxy counts them.
    private let countsRequests: Bool

    init(traffic: PageTraffic, countsRequests: Bool) {
        self.traffic = traffic
        self.countsRequests = countsRequests
    }

    var loaded: Bool { state.withLock { $0.loaded } }
    /// The page's renderer crashed (`Inspector.targetCrashed`).
    var crashed: Bool { state.withLock { $0.crashed } }
    var dataByScript: Bool { state.withLock { $0.dataByScript } }
    var notes: [String] { state.withLock { $0.notes } }

    func note(_ note: String) {
        state.withLock { state in
            if state.notes.count < 20, !state.notes.contains(note) { state.notes.append(note) }
        }
    }

    /// Takes one event of the page's session; `answerDialog` dismisses a dialog it reports.
    func take(_ method: String, _ params: JSONValue, answerDialog: @escaping @Sendable () -> Void) {
        switch method {
        case "Page.loadEventFired":
            state.withLock { $0.loaded = true }
        case "Inspector.targetCrashed":
            state.withLock { $0.crashed = true }
        case "Network.responseReceived":
            // Content by fetch/XHR cannot be loaded again from file://: the copy is then the rendered DOM.
            let type = params["type"]?.string ?? ""
            let status = params["response"]?["status"]?.number ?? 0
            if ["XHR", "Fetch", "EventSource"].contains(type) && (200..<300).contains(status) {
                state.withLock { $0.dataByScript = true }
                if let url = params["response"]?["url"]?.string { traffic.noteData(url) }
            }
        case "Network.requestWillBeSent", "Network.loadingFinished", "Network.loadingFailed":
            guard countsRequests, let id = params["requestId"]?.string else { return }
            let started = method == "Network.requestWillBeSent"
            // blob: and data: URLs are the page's own memory (the replay layer's answers, a worker
            // started from them), and their end may be reported in a worker's session only.
            if started, let url = params["request"]?["url"]?.string, url.hasPrefix("blob:") || url.hasPrefix("data:") { return }
            let changed = state.withLock { started ? $0.inFlight.insert(id).inserted : $0.inFlight.remove(id) != nil }
            if changed && started { _ = traffic.begin() } else if changed { traffic.end(loaded: nil) }
        case "Page.javascriptDialogOpening":
            note("opened a \(params["type"]?.string ?? "") dialog (dismissed): \(String((params["message"]?.string ?? "").prefix(80)))")
            answerDialog()
        case "Page.windowOpen":
            note("opened a window (closed): \(params["url"]?.string ?? "")")
        default:
            break
        }
    }
}
