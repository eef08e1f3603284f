/// The URLs a worker of a shared crawl knows the crawl has seen: it found, claimed or was told
/// of them. The seen set only grows in a round, so these are not asked of the database again;
/// past a million they are all forgotten (the database still knows).
struct KnownURLs {
    private var urls = Set<String>()

    func contains(_ url: String) -> Bool { urls.contains(url) }

    mutating func remember(_ url: String) {
        if urls.count >= 1_000_000 { urls = [] }
        urls.insert(url)
    }
}
