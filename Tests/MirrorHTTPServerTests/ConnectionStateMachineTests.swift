import NIOCore
import NIOHTTP1
import Testing

@testable import MirrorHTTPServer

/// Every transition of a connection's life, driven without a socket: the requests read, the
/// responses ended, the reads asked for.
@Suite("A connection's state machine")
struct ConnectionStateMachineTests {
    var machine = ConnectionStateMachine(maxTargetBytes: 20, maxRequestBodyBytes: 4)

    @Test mutating func aRequestReadWholeIsAnsweredWithItsBody() {
        #expect(describe(machine.arrived(.part(.head(head("/a", method: .POST))))) == "none")
        #expect(describe(machine.arrived(.part(.body(ByteBuffer(string: "ab"))))) == "none")
        #expect(describe(machine.arrived(.part(.body(ByteBuffer(string: "cd"))))) == "none")
        #expect(describe(machine.arrived(.part(.end(nil)))) == "respond POST /a body=abcd")
        #expect(describe(machine.responseEnded(closesConnection: false)) == "none")
    }

    @Test mutating func pipelinedRequestsWaitAndAreAnsweredInOrder() {
        #expect(describe(send("/a")) == "respond GET /a")
        #expect(describe(send("/b")) == "none", "waits behind /a")
        #expect(describe(send("/c")) == "none")
        #expect(describe(machine.responseEnded(closesConnection: false)) == "respond GET /b")
        #expect(describe(machine.responseEnded(closesConnection: false)) == "respond GET /c")
        #expect(describe(machine.responseEnded(closesConnection: false)) == "none")
        #expect(describe(send("/d")) == "respond GET /d", "nothing waits: answered at once")
    }

    @Test mutating func aReadAskedForWhileRequestsWaitIsHeldUntilTheyAreAnswered() {
        #expect(describe(send("/a")) == "respond GET /a")
        #expect(describe(machine.readRequested()) == "read", "nothing waits: reading goes on during a response")
        #expect(describe(send("/b")) == "none")
        #expect(describe(send("/c")) == "none")
        #expect(describe(machine.readRequested()) == "none", "a client that sends faster than it is answered waits")
        #expect(describe(machine.responseEnded(closesConnection: false)) == "respond GET /b", "/c still waits: still held")
        #expect(describe(machine.responseEnded(closesConnection: false)) == "respond GET /c then read")
        #expect(describe(machine.readRequested()) == "read")
    }

    @Test mutating func aHeldReadIsPassedOnWhenWhatWaitedIsNoWholeRequest() {
        #expect(describe(send("/a")) == "respond GET /a")
        #expect(describe(machine.arrived(.part(.head(head("/b", method: .PUT))))) == "none")
        #expect(describe(machine.arrived(.part(.body(ByteBuffer(string: "x"))))) == "none")
        #expect(describe(machine.readRequested()) == "none")
        #expect(describe(machine.responseEnded(closesConnection: false)) == "read", "the rest of /b is to be read")
        #expect(describe(machine.arrived(.part(.body(ByteBuffer(string: "yz"))))) == "none")
        #expect(describe(machine.arrived(.part(.end(nil)))) == "respond PUT /b body=xyz", "the parts that waited are kept")
    }

    @Test mutating func anUnreadableRequestIsRefusedAndNothingAfterIsAnswered() {
        #expect(describe(machine.arrived(.unreadable)) == "refuse unreadable")
        #expect(describe(send("/a")) == "none")
        #expect(describe(machine.arrived(.unreadable)) == "none")
        #expect(describe(machine.readRequested()) == "read")
    }

    @Test mutating func anUnreadableRequestWaitsItsTurn() {
        #expect(describe(send("/a")) == "respond GET /a")
        #expect(describe(send("/b")) == "none")
        #expect(describe(machine.arrived(.unreadable)) == "none")
        #expect(describe(send("/c")) == "none")
        #expect(describe(machine.responseEnded(closesConnection: false)) == "respond GET /b")
        #expect(describe(machine.responseEnded(closesConnection: false)) == "refuse unreadable", "and /c never")
        #expect(describe(machine.responseEnded(closesConnection: false)) == "none")
    }

    @Test mutating func aResponseThatClosesDropsWhatWaitsAndPassesTheHeldReadOn() {
        #expect(describe(send("/a")) == "respond GET /a")
        #expect(describe(send("/b")) == "none")
        #expect(describe(machine.readRequested()) == "none")
        #expect(describe(machine.responseEnded(closesConnection: true)) == "read")
        #expect(describe(send("/c")) == "none")
        #expect(describe(machine.responseEnded(closesConnection: false)) == "none", "/b is never answered")
    }

    @Test mutating func aTargetOverTheLimitIsRefusedWith414() {
        #expect(describe(send("/" + String(repeating: "x", count: 20))) == "respond GET /xxxxxxxxxxxxxxxxxxxx refused 414")
        #expect(describe(machine.responseEnded(closesConnection: false)) == "none")
        #expect(describe(send("/short")) == "respond GET /short", "the refusal was that request's only")
    }

    @Test mutating func aBodyOverTheLimitIsRefusedWith413AndNotKept() {
        #expect(describe(machine.arrived(.part(.head(head("/up", method: .POST))))) == "none")
        #expect(describe(machine.arrived(.part(.body(ByteBuffer(string: "abc"))))) == "none")
        #expect(describe(machine.arrived(.part(.body(ByteBuffer(string: "de"))))) == "none")
        #expect(describe(machine.arrived(.part(.body(ByteBuffer(string: "f"))))) == "none")
        #expect(describe(machine.arrived(.part(.end(nil)))) == "respond POST /up refused 413")
    }

    @Test mutating func anEndWithoutAHeadIsNoRequest() {
        #expect(describe(machine.arrived(.part(.end(nil)))) == "none")
        #expect(describe(machine.arrived(.part(.body(ByteBuffer(string: "x"))))) == "none")
        #expect(describe(send("/a")) == "respond GET /a")
    }

    // MARK: -

    private func head(_ uri: String, method: HTTPMethod = .GET) -> HTTPRequestHead {
        HTTPRequestHead(version: .http1_1, method: method, uri: uri)
    }

    /// A request without a body, its head and end read at once.
    private mutating func send(_ uri: String) -> ConnectionStateMachine.Action {
        let headAction = machine.arrived(.part(.head(head(uri))))
        guard case .none = headAction else { return headAction }
        return machine.arrived(.part(.end(nil)))
    }

    private func describe(_ action: ConnectionStateMachine.Action) -> String {
        switch action {
        case .none: return "none"
        case .read: return "read"
        case .refuseUnreadable: return "refuse unreadable"
        case .respond(let request, let thenRead):
            var text = "respond \(request.head.method.rawValue) \(request.head.uri)"
            if let body = request.body { text += " body=\(String(buffer: body))" }
            if let refusal = request.refusal { text += " refused \(refusal.status.code)" }
            return thenRead ? text + " then read" : text
        }
    }
}
