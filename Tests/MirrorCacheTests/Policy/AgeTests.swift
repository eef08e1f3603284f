import MirrorCache
import NIOHTTP1
import Testing

/// RFC 9111 §4.2.3: calculating age.
///
///     apparent_age = max(0, response_time - date_value)
///     response_delay = response_time - request_time
///     corrected_age_value = age_value + response_delay
///     corrected_initial_age = max(apparent_age, corrected_age_value)
///     resident_time = now - response_time
///     current_age = corrected_initial_age + resident_time
@Suite("Policy: §4.2.3 age")
struct PolicyAgeTests {
    typealias F = PolicyFixture

    struct Case: Sendable, CustomTestStringConvertible {
        var request: Double, response: Double, date: Int64?, age: String?, now: Double, expected: Double
        var testDescription: String {
            "req \(request) resp \(response) Date \(date.map(String.init) ?? "-") Age \(age ?? "-") now \(now) → \(expected)"
        }
    }

    static let cases: [Case] = [
        // The example from the brief: sent 995, received 1000, Date 990, Age 5.
        // apparent 10, corrected age value 5+5 = 10 → initial 10.
        Case(request: 995, response: 1000, date: 990, age: "5", now: 1000, expected: 10),
        Case(request: 995, response: 1000, date: 990, age: "5", now: 1060, expected: 70),
        // Apparent age dominates (the origin's clock says 30 s old, Age says 5).
        Case(request: 1000, response: 1000, date: 970, age: "5", now: 1010, expected: 40),
        // Age plus response delay dominates: 100 + (1000 - 990) = 110.
        Case(request: 990, response: 1000, date: 1000, age: "100", now: 1020, expected: 130),
        // No Age header: only the apparent age and the delay.
        Case(request: 998, response: 1000, date: 1000, age: nil, now: 1000, expected: 2),
        Case(request: 1000, response: 1000, date: 1000, age: nil, now: 1000, expected: 0),
        // No Date: the response time stands in for it, so the apparent age is 0.
        Case(request: 996, response: 1000, date: nil, age: nil, now: 1000, expected: 4),
        Case(request: 996, response: 1000, date: nil, age: "20", now: 1005, expected: 29),
        // Date in the future (origin clock ahead): apparent age clamps to 0.
        Case(request: 1000, response: 1000, date: 1100, age: nil, now: 1050, expected: 50),
        // Resident time only.
        Case(request: 1000, response: 1000, date: 1000, age: "0", now: 4600, expected: 3600),
    ]

    @Test(arguments: cases)
    func currentAge(_ c: Case) {
        var fields: [(String, String)] = []
        if let date = c.date { fields.append(("Date", F.date(date))) }
        if let age = c.age { fields.append(("Age", age)) }
        let head = F.head(fields, requestTime: c.request, responseTime: c.response)
        #expect(F.privateCache.currentAge(head, now: c.now) == c.expected)
        #expect(F.sharedCache.currentAge(head, now: c.now) == c.expected)
    }

    @Test func ageGrowsOneForOneWithTime() {
        let head = F.head([("Date", F.date(990)), ("Age", "5")], requestTime: 995, responseTime: 1000)
        let at1000 = F.privateCache.currentAge(head, now: 1000)
        #expect(F.privateCache.currentAge(head, now: 1001) == at1000 + 1)
        #expect(F.privateCache.currentAge(head, now: 2000) == at1000 + 1000)
    }

    @Test(arguments: ["abc", "-50", ""])
    func unusableAgeValuesCountAsZero(age: String) {
        let head = F.head([("Date", F.date(1000)), ("Age", age)], requestTime: 995, responseTime: 1000)
        #expect(F.privateCache.currentAge(head, now: 1010) == 15)  // delay 5 + resident 10
    }

    @Test func ageWithSurroundingWhitespaceIsRead() {
        let head = F.head([("Date", F.date(1000)), ("Age", " 30 ")], requestTime: 1000, responseTime: 1000)
        #expect(F.privateCache.currentAge(head, now: 1000) == 30)
    }

    /// A list in one line ("7200, 0"): its first member counts (§5.1).
    @Test func theFirstMemberOfAnAgeListIsUsed() {
        let head = F.head([("Date", F.date(1000)), ("Age", "300, 30")], requestTime: 1000, responseTime: 1000)
        #expect(F.privateCache.currentAge(head, now: 1000) == 300)
    }

    @Test func theFirstAgeLineIsUsed() {
        let head = F.head([("Date", F.date(1000)), ("Age", "30"), ("Age", "300")], requestTime: 1000, responseTime: 1000)
        #expect(F.privateCache.currentAge(head, now: 1000) == 30)
    }

    @Test func aClockGoingBackwardsGivesNoNegativeResidentTime() {
        let head = F.head([("Date", F.date(1000)), ("Age", "10")], requestTime: 1000, responseTime: 1000)
        #expect(F.privateCache.currentAge(head, now: 900) == 10)
    }

    @Test func ageDecidesStalenessAgainstTheLifetime() {
        // max-age=60, received at 1000 carrying Age 50 from an upstream cache: fresh for 10 more seconds.
        let head = F.head([("Date", F.date(1000)), ("Age", "50"), ("Cache-Control", "max-age=60")])
        #expect(F.privateCache.reuse(head, request: [:], now: 1009, mode: .standard) == .serve(age: 59, stale: false))
        #expect(F.privateCache.reuse(head, request: [:], now: 1010, mode: .standard) == .validate)
    }

    /// Found by the `cache-policy` fuzz target: an Age of 24 digits was read as a Double of
    /// 1e23, and `Age: 1` with 400 zeros as infinity; the caching client's `Int(age)` trapped on
    /// both. A value past 2^31 is 2^31 (§1.2.2).
    @Test(arguments: ["100000000000000000000000", "1" + String(repeating: "0", count: 400)])
    func aHugeAgeIsTwoToTheThirtyOne(age: String) {
        let head = F.head([("Age", age)])
        #expect(F.privateCache.currentAge(head, now: 1000) == 2_147_483_648)
        #expect(F.sharedCache.currentAge(head, now: 1010) == 2_147_483_658)
    }
}
