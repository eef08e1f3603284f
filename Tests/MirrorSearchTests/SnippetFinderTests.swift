import Foundation
@testable import MirrorSearch
import Testing

/// Where a result's snippet is read from: the places of the query's words, not the whole page.
@Suite("Snippet places")
struct SnippetFinderTests {
    @Test func placesWithTheOtherWordsNearComeFirstAndEndAtTags() {
        let filler = String(repeating: "<p>filler words here</p>", count: 200)
        let html = Array("<html><head><title>walk</title></head><body>\(filler)<p>walk() alone</p>\(filler)<p>Call os.walk() now</p>\(filler)</body></html>".utf8)
        let places = SnippetFinder.places(of: [Array("walk".utf8), Array("os".utf8)], in: html)
        #expect(!places.isEmpty && places.count <= SnippetFinder.places)
        let first = String(decoding: html[places[0]], as: UTF8.self)
        #expect(places.contains { String(decoding: html[$0], as: UTF8.self).contains("os.walk()") })
        #expect(!first.contains("<title>"), "the head is not searched")
        for place in places {
            #expect(html[place.lowerBound - 1] == UInt8(ascii: ">") && html[place.upperBound] == UInt8(ascii: "<"))
        }
        #expect(SnippetFinder.places(of: [Array("absent".utf8)], in: html).isEmpty)
        #expect(SnippetFinder.places(of: [], in: html).isEmpty)
    }
}
