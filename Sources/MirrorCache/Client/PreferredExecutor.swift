/// The executor a caller's work prefers, for the tasks the cache starts on its behalf (a flight's
/// origin request, a body streaming into the store): Swift's unstructured tasks do not inherit
/// a task's executor preference, and a task cannot read its own. The crawl's workers set it to the
/// transport's executor they run on (`HTTPTransport.nearbyExecutors`); nil leaves such tasks on
/// the global pool.
public enum PreferredExecutor {
    @TaskLocal public static var current: (any TaskExecutor)?

    /// Adds to `group` a task that runs `work` on `executor`, with the cache's tasks for it there too.
    public static func addTask(
        to group: inout TaskGroup<Void>, on executor: (any TaskExecutor)?, _ work: @escaping @Sendable () async -> Void
    ) {
        group.addTask(executorPreference: executor) { await $current.withValue(executor) { await work() } }
    }
}
