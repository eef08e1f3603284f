import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What swift-corelibs-foundation keeps from a URLProtocol, read through reflection: a task's
/// session (its delegate queue, configuration and delegate, for redirects and cookies), the
/// session's work queue, the body of an upload task (which is not in the protocol's request),
/// and whether the task's data goes to a delegate or to a completion handler.
///
/// The work queue matters: Foundation's client reads the session's registry of tasks in every
/// call a protocol makes, and changes it on that queue as tasks start and end. Called from
/// another thread while other tasks come and go, the client crashes (a null dereference in
/// `URLSession.behaviour(for:)`); its own protocols call it on that queue.
///
/// The second matters: Foundation hands a completion handler only the data of a protocol's
/// last `didLoad` (it keeps it in the protocol's `properties[.responseData]`), and passes a
/// protocol's data to a delegate only for a task made without a completion handler. So a body
/// goes in pieces as it arrives to a delegate, and whole to a completion handler. Where
/// reflection finds nothing (a Foundation laid out otherwise), the body goes whole, which is
/// right for both and only later for a delegate. Read on the session's work queue, where
/// Foundation calls `startLoading` and keeps its registry of tasks.
struct TaskIntrospection {
    /// The task's session, nil where reflection cannot find it.
    let session: URLSession?
    /// The queue Foundation keeps the session's tasks on, where the client is called.
    let workQueue: DispatchQueue?
    /// Whether the body goes to the task's delegate as it arrives.
    let dataGoesToDelegate: Bool
    /// What the task uploads (`upload(for:from:)`, `uploadTask(with:fromFile:)`); nil when
    /// it uploads nothing, or reflection cannot tell.
    let upload: Upload?

    /// A task's body, as Foundation keeps it.
    enum Upload {
        case bytes([UInt8])
        case file(URL)
        case stream(InputStream)
    }

    init(_ task: URLSessionTask) {
        let session = Self.stored("session", in: task) as? URLSession
        self.session = session
        workQueue = session.flatMap { Self.stored("workQueue", in: $0) } as? DispatchQueue
        upload = Self.stored("knownBody", in: task).flatMap(Self.upload)
        guard let session, let registry = Self.stored("taskRegistry", in: session),
            let behaviours = Self.stored("behaviours", in: registry) as? [Int: Any],
            let behaviour = behaviours[task.taskIdentifier]
        else {
            dataGoesToDelegate = false
            return
        }
        // `_Behaviour.callDelegate`: a task made without a completion handler.
        dataGoesToDelegate = String(describing: behaviour) == "callDelegate" && task.delegate is URLSessionDataDelegate
    }

    /// The upload of Foundation's `URLSessionTask._Body` (`.none`, `.data`, `.file`, `.stream`).
    private static func upload(_ body: Any) -> Upload? {
        guard let payload = Mirror(reflecting: body).children.first else { return nil }
        switch (payload.label, payload.value) {
        case ("data", let data as DispatchData): return .bytes([UInt8](data))
        case ("file", let url as URL): return .file(url)
        case ("stream", let stream as InputStream): return .stream(stream)
        default: return nil
        }
    }

    /// The stored property `name` of `object`, declared by its class or a superclass.
    private static func stored(_ name: String, in object: Any) -> Any? {
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            if let child = current.children.first(where: { $0.label == name }) { return unwrapped(child.value) }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// `value` without its Optional (Foundation keeps the session in an implicitly unwrapped one).
    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map { unwrapped($0.value) } ?? nil
    }
}
