import AsyncHTTPClient
import MirrorCache
import NIOCore
import NIOHTTP1

/// Receives one response from async-http-client's delegate interface, on the request's event
/// loop, and hands it to the caller as a `TransportResponse`: whole when its body has arrived by
/// the loop's next turn (up to `bufferLimit` bytes), else as a stream that reads on as the caller
/// takes its chunks. A page served at once then costs one wake of the waiting task; through the
/// async interface's body stream, a crawl made nearly three times the context switches.
///
/// Every method runs on the loop (`loop`), so the state needs no lock; the stream's callbacks,
/// from any thread, go to the loop first. It lets go of the answer once it is given: a future
/// keeps its value, and a stream's body kept by its own producer would never end, nor free its
/// connection, when its reader drops it unread.
final class ResponseCollector: HTTPClientResponseDelegate, @unchecked Sendable {
    typealias Response = Void

    private enum State {
        case waitingForHead
        /// The body so far, while it may still come whole.
        case buffering(HTTPResponseHead, chunks: [[UInt8]], size: Int)
        /// Handed out as a stream; `waiting` is the read paused until the caller takes more.
        case streaming(Stream.Source, waiting: EventLoopPromise<Void>?)
        case finished
    }

    private typealias Stream = NIOThrowingAsyncSequenceProducer<
        [UInt8], any Error, NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark, StreamDemand
    >

    let loop: any EventLoop
    private let bufferLimit: Int
    /// Until the caller has its answer.
    private var answer: EventLoopPromise<TransportResponse>?
    private var state = State.waitingForHead
    /// Set when the request starts, for the stream to cancel it when its reader goes away.
    private var task: HTTPClient.Task<Void>?
    /// Fails the request if its head has not come by its deadline.
    private var headDeadline: Scheduled<Void>?

    /// Completes `answer` with the response: once its whole body has come, or once it is handed
    /// over as a stream (by the loop's next turn after its head, or past `bufferLimit` bytes).
    init(answer: EventLoopPromise<TransportResponse>, bufferLimit: Int) {
        loop = answer.futureResult.eventLoop
        self.bufferLimit = bufferLimit
        self.answer = answer
    }

    /// Fails `task` with `HTTPClientError.deadlineExceeded` unless its head has come by `deadline`.
    func cancel(_ task: HTTPClient.Task<Void>, ifNoHeadBy deadline: NIODeadline) {
        loop.execute {
            guard case .waitingForHead = self.state else { return }
            self.headDeadline = self.loop.scheduleTask(deadline: deadline) {
                guard case .waitingForHead = self.state else { return }
                self.fail(HTTPClientError.deadlineExceeded)
                task.cancel()
            }
        }
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        self.task = task
        headDeadline?.cancel()
        headDeadline = nil
        state = .buffering(head, chunks: [], size: 0)
        // Runs once the loop has handled what the connection has read so far: a response read
        // whole by then is handed over whole; one still arriving is handed over as a stream now,
        // so a slow or large body's first bytes reach the caller without waiting for the rest.
        loop.execute { self.streamIfStillArriving() }
        return loop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let chunk = Array(buffer: buffer)
        switch state {
        case .buffering(let head, var chunks, let size):
            chunks.append(chunk)
            guard size + chunk.count > bufferLimit else {
                state = .buffering(head, chunks: chunks, size: size + chunk.count)
                return loop.makeSucceededVoidFuture()
            }
            return afterYield(startStream(head, with: chunks))
        case .streaming(let source, _):
            return afterYield(source.yield(chunk))
        case .waitingForHead, .finished:
            return loop.makeSucceededVoidFuture()
        }
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        fail(error)
    }

    /// The request failed: the caller still waiting hears it (async-http-client tells the
    /// delegate too; this covers a failure it reports only through the task).
    func requestFailed(_ error: any Error) {
        loop.execute { self.fail(error) }
    }

    private func fail(_ error: any Error) {
        switch state {
        case .waitingForHead: give(.failure(error))
        case .buffering(let head, let chunks, _):
            // The head came: the caller has it, and its body ends in the error, as a stream's would.
            handOver(head, body: WholeBody(chunks: chunks, failure: error))
        case .streaming(let source, let waiting):
            source.finish(error)
            waiting?.succeed()
        case .finished: break
        }
        state = .finished
        task = nil
        headDeadline?.cancel()
        headDeadline = nil
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        switch state {
        case .buffering(let head, let chunks, _):
            handOver(head, body: WholeBody(chunks: chunks))
        case .streaming(let source, _):
            source.finish()
        case .waitingForHead:
            give(.failure(HTTPClientError.remoteConnectionClosed))
        case .finished:
            break
        }
        state = .finished
        self.task = nil
    }

    /// Gives the waiting caller the response.
    private func handOver(_ head: HTTPResponseHead, body: some AsyncSequence<[UInt8], any Error> & Sendable) {
        give(.success(TransportResponse(status: Int(head.status.code), headers: head.headers, body: body)))
    }

    private func give(_ result: Result<TransportResponse, any Error>) {
        answer?.completeWith(result)
        answer = nil
    }

    /// Hands the response over as a stream, with the chunks buffered so far.
    private func startStream(_ head: HTTPResponseHead, with chunks: [[UInt8]]) -> Stream.Source.YieldResult {
        let stream = Stream.makeSequence(
            backPressureStrategy: .init(lowWatermark: 2, highWatermark: 8), finishOnDeinit: false,
            delegate: StreamDemand(collector: self))
        state = .streaming(stream.source, waiting: nil)
        handOver(head, body: stream.sequence)
        return stream.source.yield(contentsOf: chunks)
    }

    /// Between two reads: no read waits on the answer, and the next chunk's yield says again
    /// whether the stream is full.
    private func streamIfStillArriving() {
        guard case .buffering(let head, let chunks, _) = state else { return }
        _ = startStream(head, with: chunks)
    }

    /// The read goes on at once, or, when the stream is full, once the reader wants more.
    private func afterYield(_ result: Stream.Source.YieldResult) -> EventLoopFuture<Void> {
        guard case .streaming(let source, _) = state else { return loop.makeSucceededVoidFuture() }
        switch result {
        case .produceMore:
            return loop.makeSucceededVoidFuture()
        case .stopProducing:
            let waiting = loop.makePromise(of: Void.self)
            state = .streaming(source, waiting: waiting)
            return waiting.futureResult
        case .dropped:
            task?.cancel()
            return loop.makeSucceededVoidFuture()
        }
    }

    /// The reader took enough to want more: the paused read goes on.
    fileprivate func readerWantsMore() {
        loop.execute {
            guard case .streaming(let source, let waiting?) = self.state else { return }
            self.state = .streaming(source, waiting: nil)
            waiting.succeed()
        }
    }

    /// The reader stopped (it finished, threw, or was cancelled): a download still going is cancelled.
    fileprivate func readerStopped() {
        loop.execute {
            guard case .streaming(_, let waiting) = self.state else { return }
            self.task?.cancel()
            waiting?.succeed()
        }
    }

    /// The stream's demand, passed to the collector on its loop.
    fileprivate struct StreamDemand: NIOAsyncSequenceProducerDelegate {
        let collector: ResponseCollector

        func produceMore() { collector.readerWantsMore() }
        func didTerminate() { collector.readerStopped() }
    }
}

/// A body that arrived whole, or cut short by `failure`: its chunks, read without waiting, then
/// the failure.
struct WholeBody: AsyncSequence, Sendable {
    typealias Element = [UInt8]
    let chunks: [[UInt8]]
    var failure: (any Error)?

    struct AsyncIterator: AsyncIteratorProtocol {
        var rest: IndexingIterator<[[UInt8]]>
        var failure: (any Error)?

        mutating func next() async throws -> [UInt8]? {
            if let chunk = rest.next() { return chunk }
            if let failure {
                self.failure = nil
                throw failure
            }
            return nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: chunks.makeIterator(), failure: failure) }
}
