#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A server holds a descriptor per connection (up to 1024) and per file recently sent (up to
/// 1024 more), past the soft limit on open files that many systems start with (1024): the soft
/// limit is raised to the hard one, as nginx's `worker_rlimit_nofile` and Go's runtime do.
enum DescriptorLimit {
    static func raise() {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(resource, &limit)
    }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif
}
