#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value that one thread at a time reads or changes, behind a pthread mutex: mirror's lock.
///
/// It takes the place of `Synchronization.Mutex`, whose Linux version locks with futex calls
/// ThreadSanitizer does not see: every access a `Mutex` guards is reported as a race, which
/// would hide real ones (`scripts/test-sanitizers`). ThreadSanitizer intercepts pthread mutexes.
/// The API is `Mutex`'s; copies share the one lock and value.
public struct Locked<Value>: @unchecked Sendable {
    private let storage: LockedStorage<Value>

    public init(_ initialValue: consuming sending Value) {
        storage = LockedStorage.make(initialValue)
    }

    /// Runs `body` on the value with the lock held.
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        let (value, mutex) = storage.pointers
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee.value)
    }

    /// Runs `body` on the value if the lock is free now; nil, without running it, when another
    /// thread holds it.
    public func withLockIfAvailable<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result? {
        let (value, mutex) = storage.pointers
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee.value)
    }
}

/// The value in storage of its own, at least a byte: a value of no size (`Locked(())`, a lock
/// that guards no data) has no address of its own, and ThreadSanitizer reported its accesses,
/// made with the lock held, as racing with the unlocked reads of the storage's addresses.
private struct Slot<Value> {
    var value: Value
    let byte: UInt8 = 0
}

/// The value and its mutex in one allocation, at addresses that stay put while it lives.
private final class LockedStorage<Value>: ManagedBuffer<Slot<Value>, pthread_mutex_t> {
    static func make(_ value: Value) -> LockedStorage {
        let buffer = create(minimumCapacity: 1) { buffer in
            buffer.withUnsafeMutablePointerToElements { mutex in
                mutex.initialize(to: pthread_mutex_t())
                precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
            }
            return Slot(value: value)
        }
        return unsafeDowncast(buffer, to: LockedStorage.self)
    }

    /// The value's and the mutex's addresses, valid while this storage lives.
    var pointers: (value: UnsafeMutablePointer<Slot<Value>>, mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        withUnsafeMutablePointers { ($0, $1) }
    }

    deinit {
        withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
        }
    }
}
