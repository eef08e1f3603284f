import MirrorCache
import MirrorCore
import MirrorSite

/// `--browser`'s offline check. Once the folder is finished, each page the browser loaded is
/// opened from the folder with no network and compared, pixel by pixel, with the live page as
/// it opened (`PageRenderer.compareOffline`). The live page of a copy that differs is opened
/// once more; a page whose copy still differs is saved once more in its other form (its
/// rendered DOM with scripts inert, or its own bytes with scripts running), the folder finished
/// again and the page compared again; the form that differs less stays.
struct OfflineCheck: Sendable {
    let renderer: any PageRenderer
    let output: SiteWriter
    let checks: PageChecks
    let loader: PageLoader
    let copier: PageCopier
    let fetcher: RetryingFetcher
    let finisher: FolderFinisher
    let keepsScreenshots: Bool
    let recorder: ReportRecorder
    let events: (@Sendable (CrawlEvent) -> Void)?

    /// Checks the pages loaded since the last check; each result goes into the report, and to
    /// the log as a `CHECK` line.
    func checkPages() async throws {
        let pending = checks.take()
        guard !pending.isEmpty else {
            checks.removeFolderIfEmpty()
            return
        }
        events?(.phase("checking \(pending.count) pages offline"))
        var first = await compare(pending, renderer: renderer, folder: output.directory, checks: checks, retried: false)
        // A live page shot in passing (laid out otherwise for a moment, as Material's sidebars now
        // and then under load) would send a right copy to its other form: the live page of each
        // copy that differs is opened once more, and when it looks otherwise this time, the copy
        // is compared with the new screenshot.
        var reshot: [PageChecks.Pending] = []
        for page in pending where (try? first[page.number]?.get())?.identical == false {
            if try await shootLiveAgain(page, renderer: renderer, checks: checks) { reshot.append(page) }
        }
        for (number, result) in await compare(reshot, renderer: renderer, folder: output.directory, checks: checks, retried: false) {
            first[number] = result
        }
        // The form each page keeps, with its comparison; `retry` when that form is the one retried.
        var kept = Dictionary(uniqueKeysWithValues: pending.map { ($0.number, (form: $0.form, result: first[$0.number], retry: false)) })
        // Each page whose copy differs, saved in its other form and compared again.
        var retried: [PageChecks.Pending] = []
        for page in pending where (try? first[page.number]?.get())?.identical == false {
            if let other = try await resave(page, in: page.form.other, checks: checks) { retried.append(other) }
        }
        let retriedNumbers = Set(retried.map(\.number))
        var second: [Int: Result<ScreenComparison, any Error>] = [:]
        if !retried.isEmpty {
            try await finisher.finish()
            second = await compare(retried, renderer: renderer, folder: output.directory, checks: checks, retried: true)
            // The form that differs less stays: one that differs more goes back to the first.
            var restored = false
            for page in retried {
                let before = (try? first[page.number]?.get())?.differing ?? .max
                if let after = try? second[page.number]?.get(), after.differing < before {
                    kept[page.number] = (page.form, second[page.number], true)
                } else {
                    restored = try await resave(page, in: page.form.other, checks: checks) != nil || restored
                }
            }
            if restored { try await finisher.finish() }
        }
        for page in pending {
            guard let (form, result, retry) = kept[page.number] else { continue }
            let check = CrawlReport.PageCheck(
                url: page.item.url, form: form, retried: retriedNumbers.contains(page.number),
                outcome: Self.outcome(of: result),
                screenshots: keepsScreenshots
                    ? [checks.livePath(page.number), checks.offlinePath(page.number, retried: retry)]
                        .map { String($0.dropFirst(output.directory.count + 1)) } : nil,
                unanswered: Self.unanswered(first[page.number], second[page.number]))
            recorder.report.withLock { report in
                report.pageChecks.append(check)
                if form != page.form { report.snapshots += form == .snapshot ? 1 : -1 }
            }
            events?(.checked(url: page.item.url, form: form, outcome: check.outcome, retried: check.retried, unanswered: check.unanswered))
            if !keepsScreenshots { checks.removeFiles(of: page.number) }
        }
        checks.removeFolderIfEmpty()
    }

    /// Compares each page's copy with its live screenshot, a few at a time (the renderer bounds
    /// its tabs); the copy's screenshot is kept beside the live one (named for the retry when
    /// `retried`).
    private func compare(
        _ pages: [PageChecks.Pending], renderer: any PageRenderer, folder: String, checks: PageChecks,
        retried: Bool
    ) async -> [Int: Result<ScreenComparison, any Error>] {
        await withTaskGroup(of: (Int, Result<ScreenComparison, any Error>).self) { group in
            var results: [Int: Result<ScreenComparison, any Error>] = [:]
            var next = 0
            func start() {
                guard next < pages.count else { return }
                let page = pages[next]
                next += 1
                group.addTask {
                    do {
                        guard let live = try FileReading.contents(of: checks.livePath(page.number)) else {
                            throw CheckError.missing("the live screenshot")
                        }
                        guard
                            let comparison = try await renderer.compareOffline(
                                PercentEncoding.fileURL(path: folder + "/" + page.path), with: live)
                        else {
                            throw CheckError.missing("a browser that can open the copy")
                        }
                        try PageChecks.write(comparison.offline, to: checks.offlinePath(page.number, retried: retried))
                        return (page.number, .success(comparison))
                    } catch {
                        return (page.number, .failure(error))
                    }
                }
            }
            for _ in 0..<4 { start() }
            for await (number, result) in group {
                results[number] = result
                start()
            }
            return results
        }
    }

    /// Loads `page`'s live page again (through the cache, as the crawl did) and keeps its new
    /// screenshot as the live one when it differs from the first; whether it did.
    private func shootLiveAgain(_ page: PageChecks.Pending, renderer: any PageRenderer, checks: PageChecks) async throws -> Bool {
        guard
            let rendered = try? await renderer.render(
                page.item.url, cookies: loader.credentials.jar,
                fetch: { [loader] request in
                    await loader.browserFetch(request, for: page.item)
                }), let live = rendered.screenshot, live != (try FileReading.contents(of: checks.livePath(page.number)))
        else { return false }
        try PageChecks.write(live, to: checks.livePath(page.number))
        return true
    }

    /// Saves `page` again in `form`; the pending check of the page in that form, or nil when
    /// that form cannot be had (no snapshot was taken, or the page's bytes are gone).
    private func resave(
        _ page: PageChecks.Pending, in form: RenderedPage.CopyForm,
        checks: PageChecks
    ) async throws -> PageChecks.Pending? {
        let response: CacheResponse
        do {
            response = try await fetcher.fetch(page.item)
        } catch {
            return nil
        }
        guard (200..<300).contains(response.status),
            let saved = await copier.copy(
                of: response, in: form, snapshot: try FileReading.contents(of: checks.snapshotPath(page.number)),
                data: page.data, pageURL: page.item.url)
        else { return nil }
        let path = try await output.write(url: page.item.url, response: CrawledResponse(saved, store: finisher.store))
        return PageChecks.Pending(item: page.item, path: path, form: form, data: page.data, number: page.number)
    }

    /// What the replay layer could not answer in either form the copy took.
    private static func unanswered(_ results: Result<ScreenComparison, any Error>?...) -> [String] {
        var urls: [String] = []
        for case .success(let comparison)? in results {
            for url in comparison.unanswered where !urls.contains(url) { urls.append(url) }
        }
        return urls
    }

    private static func outcome(of result: Result<ScreenComparison, any Error>?) -> CrawlReport.PageCheck.Outcome {
        switch result {
        case .success(let comparison): comparison.identical ? .identical : .differs(share: comparison.share)
        case .failure(let error): .unchecked("\(error)")
        case nil: .unchecked("not compared")
        }
    }

    enum CheckError: Error, CustomStringConvertible {
        case missing(String)
        var description: String {
            switch self {
            case .missing(let what): "no \(what)"
            }
        }
    }
}

extension RenderedPage.CopyForm {
    var other: Self { self == .original ? .snapshot : .original }
}
