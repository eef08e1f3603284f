import MirrorCore
import Testing

@Suite("Memory tier")
struct MemoryTierTests {
    func body(_ size: Int, _ byte: UInt8) -> [UInt8] { [UInt8](repeating: byte, count: size) }

    @Test func keepsWhatFitsAndRefusesLargeBodies() {
        let tier = MemoryTier(capacity: 1000, maxBodySize: 300)
        tier.put("a", body(300, 1))
        tier.put("big", body(301, 2))
        #expect(tier.get("a") == body(300, 1))
        #expect(tier.get("big") == nil)
        tier.put("a", body(10, 3))
        #expect(tier.get("a") == body(10, 3), "a new body replaces the old one")
        tier.remove("a")
        #expect(tier.get("a") == nil)
        #expect(MemoryTier(capacity: 0, maxBodySize: 300).get("a") == nil)
    }

    /// Past its capacity it drops the least recently used bodies, down to 7/8 of the capacity.
    @Test func dropsTheLeastRecentlyUsedDownToSevenEighths() {
        let tier = MemoryTier(capacity: 800, maxBodySize: 100)
        for index in 0..<8 { tier.put("\(index)", body(100, UInt8(index))) }
        #expect(tier.get("0") != nil, "a used body becomes the most recent")
        tier.put("8", body(100, 8))  // 900 bytes: 1 and 2 go, leaving 700
        #expect(tier.get("1") == nil && tier.get("2") == nil)
        for index in [0] + Array(3...8) { #expect(tier.get("\(index)") == body(100, UInt8(index)), "\(index)") }
        tier.removeAll()
        #expect(tier.get("0") == nil)
    }
}
