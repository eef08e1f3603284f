import MirrorCore
public import MirrorCredentials

extension CrawlCredentials {
    /// The credentials of `configuration` alone: its headers, no login, and a jar that keeps
    /// what the sites set (domain cookies checked against the system's public suffix list).
    public convenience init(
        configuration: CrawlConfiguration, login: Login? = nil,
        jar: CookieJar = CookieJar(publicSuffixes: PublicSuffixList.system())
    ) {
        let seeds = configuration.seeds.compactMap(URLParts.init)
        self.init(
            seeds: seeds, allowedHosts: configuration.allowedHosts,
            headers: configuration.headers.map { CrawlCredentials.Field(name: $0.name, value: $0.value) },
            login: login, jar: jar)
    }
}
