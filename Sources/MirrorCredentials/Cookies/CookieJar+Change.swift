extension CookieJar {
    /// What one `Set-Cookie` value, or one added cookie, did to the jar.
    public enum Change: Sendable, Equatable {
        case stored(Cookie)
        /// It took the place of a cookie with the same name, domain and path, keeping that one's
        /// creation time and `given`.
        case replaced(old: Cookie, new: Cookie)
        /// It was expired and removed the stored cookie shown: a crawl that sees a `given` cookie
        /// deleted has been logged out.
        case deleted(Cookie)
        /// It was expired and matched no stored cookie: nothing changed.
        case expiredOnArrival(Cookie)
        /// It was not stored, for the reason given (which never holds the cookie's value).
        case refused(reason: String)
    }
}
