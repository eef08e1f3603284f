public import NIOCore

/// Where a server listens and the limits that keep one client from hurting the others.
public struct ServerConfiguration: Sendable {
    /// The address to listen on; loopback unless the user says otherwise.
    public var host = "127.0.0.1"
    /// The port; 0 picks a free one.
    public var port = 8080
    /// How long a connection may take to send a complete request head, counted from its
    /// opening or from the end of the previous response: closes idle keep-alive connections
    /// and clients that trickle their headers (slowloris).
    public var headerTimeout: TimeAmount = .seconds(30)
    /// How long a response may wait for the client to take any of its bytes, or a request body
    /// for its next bytes, before the connection is closed.
    public var stallTimeout: TimeAmount = .seconds(30)
    /// Connections open at once; more are closed as soon as they are accepted, so a flood
    /// cannot take the memory and descriptors that the connections already open need.
    public var maxConnections = 1024
    /// The longest request target (path and query) accepted; longer ones get 414.
    public var maxTargetBytes = 8192
    /// The largest request body accepted; larger ones get 413.
    public var maxRequestBodyBytes = 1 << 20
    /// Whether `CONNECT host:port` opens a tunnel there (a forward proxy); otherwise CONNECT
    /// reaches the responder like any other method.
    public var tunnelsConnect = false
    /// With an interceptor, a CONNECT tunnel is decrypted and its requests answered by the
    /// responder (no connection to the target is opened); without, its bytes pass unread.
    public var tunnelInterceptor: (any TunnelInterceptor)?
    /// How long a tunnel may take to connect.
    public var tunnelConnectTimeout: TimeAmount = .seconds(10)
    /// How long a tunnel may carry no byte either way before both of its connections are closed.
    public var tunnelIdleTimeout: TimeAmount = .minutes(5)

    public init(host: String = "127.0.0.1", port: Int = 8080) {
        self.host = host
        self.port = port
    }
}
