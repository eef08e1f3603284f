import Foundation
import Testing

@testable import MirrorSearch

/// Where a result's snippet is read from: the places of the query's words, not the whole page.
@Suite("Snippet places")
struct SnippetFinderTests {
    @Test func placesWithTheOtherWordsNearComeFirstAndEndAtTags() {
        let filler = String(repeating: "<p>filler words here</p>", count: 200)
        let html = Array(
            "<html><head><title>walk</title></head><body>\(filler)<p>walk() alone</p>\(filler)<p>Call os.walk() now</p>\(filler)</body></html>"
                .utf8)
        let places = SnippetFinder.places(of: [.init(bytes: Array("walk".utf8)), .init(bytes: Array("os".utf8))], in: .init(html))
        #expect(!places.isEmpty && places.count <= SnippetFinder.places)
        let first = String(decoding: html[places[0]], as: UTF8.self)
        #expect(places.contains { String(decoding: html[$0], as: UTF8.self).contains("os.walk()") })
        #expect(!first.contains("<title>"), "the head is not searched")
        for place in places {
            #expect(html[place.lowerBound - 1] == UInt8(ascii: ">") && html[place.upperBound] == UInt8(ascii: "<"))
        }
        #expect(SnippetFinder.places(of: [.init(bytes: Array("absent".utf8))], in: .init(html)).isEmpty)
        #expect(SnippetFinder.places(of: [], in: .init(html)).isEmpty)
    }

    @Test func aPlaceIsAWholeWordOfTheTextNotOfATagOrALongerWord() {
        let filler = String(repeating: "<p>filler words here</p>", count: 100)
        let html = Array(
            """
            <html><body><a href="#comprehension">List Comprehensions</a>\(filler)<p>fwalk() and walker</p>\(filler)\
            <p>A list comprehension is short.</p>\(filler)</body></html>
            """.utf8)
        let places = SnippetFinder.places(
            of: [.init(bytes: Array("comprehension".utf8)), .init(bytes: Array("list".utf8))], in: .init(html))
        #expect(places.count == 1 && String(decoding: html[places[0]], as: UTF8.self).contains("A list comprehension"))
        #expect(!String(decoding: html[places[0]], as: UTF8.self).contains("Comprehensions"))
        #expect(SnippetFinder.places(of: [.init(bytes: Array("walk".utf8))], in: .init(html)).isEmpty)
        #expect(SnippetFinder.places(of: [.init(bytes: Array("walk".utf8), isPrefix: true)], in: .init(html)).count == 1)
        // Each word's own places, for a page whose words are far apart.
        let apart = SnippetFinder.places(
            of: [.init(bytes: Array("fwalk".utf8)), .init(bytes: Array("short".utf8))], in: .init(html),
            anchoredAtEveryWord: true)
        #expect(apart.count == 2)
    }
}
