import MirrorTestSupport

extension TestOrigin {
    /// A start page `/` linking to `/p1.html` … `/p<count>.html`, each answered by `page` (given
    /// its number): a crawl then has many requests to overlap or space.
    func routeLinkedPages(_ count: Int, _ page: @escaping @Sendable (Int) async -> TestResponse) {
        route("/") { _ in .html((1...count).map { "<a href='/p\($0).html'>p</a>" }.joined()) }
        for index in 1...count {
            route("/p\(index).html") { _ in await page(index) }
        }
    }

    /// `routeLinkedPages` with each page answered `delay` late (with `headers` besides its type).
    func routeSlowPages(_ count: Int, delay: Duration, headers: [(String, String)] = []) {
        routeLinkedPages(count) { index in
            var response = TestResponse.html("page \(index)", headers: headers)
            response.delay = delay
            return response
        }
    }
}
