/// FNV-1a over bytes, 64 bits: the same in every process and on every machine, unlike
/// `hashValue` (seeded per process), for keys whose collisions or order must not vary by run.
public struct StableHash: Sendable {
    @usableFromInline var state: UInt64 = 0xcbf2_9ce4_8422_2325

    @inlinable public init() {}

    @inlinable public var value: UInt64 { state }

    @inlinable public mutating func add(_ byte: UInt8) {
        state = (state ^ UInt64(byte)) &* 0x100_0000_01b3
    }

    @inlinable public mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { add(byte) }
    }
}
