extension Duration {
    /// The duration in seconds, fraction included: what reports, rates and leases are written in.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
